import Foundation
import Testing
import WidgetBusProtocol

/// The image runs every executable from one binary, linked under each name
/// (`deploy/stage-binaries.sh`): called by a name it is that executable — the same help, the same
/// service — and called by its own name it takes the executable's name as its first argument.
@Suite(.serialized, .blockingThreads)
struct MultiCallBinaryTests {
    static let multicall = BusFixture.productsDirectory.appendingPathComponent("widgetbus-multicall")

    /// A folder with a link to the multi-call binary under each name it lists.
    static func links() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("multicall-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in try runCommand(multicall, ["--list"], environment: [:]).lines {
            try FileManager.default.createSymbolicLink(at: folder.appendingPathComponent(name), withDestinationURL: multicall)
        }
        return folder
    }

    @Test func eachLinkIsTheExecutableItIsNamedAfter() throws {
        let links = try Self.links()
        defer { try? FileManager.default.removeItem(at: links) }
        let names = try FileManager.default.contentsOfDirectory(atPath: links.path).sorted()
        #expect(names == ["app-gateway", "intent-handler", "metrics-ingest", "push-gateway", "snapshot-writer", "sync-agent", "timeline-service", "widgetctl"])
        for name in names {
            let linked = try runCommand(links.appendingPathComponent(name), ["--help"], environment: [:])
            let own = try runCommand(BusFixture.productsDirectory.appendingPathComponent(name), ["--help"], environment: [:])
            #expect(linked.status == 0 && linked.stdout == own.stdout, "\(name): the same help as its own executable")
            let named = try runCommand(Self.multicall, [name, "--help"], environment: [:])
            #expect(named.stdout == own.stdout, "widgetbus-multicall \(name) --help")
        }
        let unknown = try runCommand(Self.multicall, ["no-such-service"], environment: [:])
        #expect(unknown.status == 64 && unknown.stderr.contains("intent-handler"), "a usage error names the executables")
    }

    @Test func aServiceStartedThroughItsLinkServes() throws {
        let links = try Self.links()
        defer { try? FileManager.default.removeItem(at: links) }
        let bus = try BusFixture()
        let service = try ServiceProcess(
            name: "intent-handler", executable: links.appendingPathComponent("intent-handler"), environment: bus.environment,
            logDirectory: bus.root)
        defer { service.terminate() }
        try bus.waitUntil("intent-handler started through its link answers ping", timeout: 15) {
            try bus.widgetctl("ping", "intent-handler", "--timeout", "300", "--attempts", "1").status == 0
        }
        let record = try bus.send(.recordTension, user: "linked", body: #"{"level":3}"#)
        #expect(record.version == 1)
        #expect(service.terminate() == 0, "it stops cleanly on SIGTERM")
    }
}
