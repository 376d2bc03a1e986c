import Foundation
import Testing
import WidgetBusProtocol

/// Where the services listen: loopback unless told otherwise, and beyond it only when told twice
/// (`WIDGETBUS_BIND_HOST` and `WIDGETBUS_INSECURE=1`), as `ss -ltn` sees the sockets.
@Suite(.serialized, .blockingThreads)
struct BindingTests {
    /// The services that bind sockets, each with the endpoints it binds.
    static let binders: [(service: BusFixture.Service, endpoints: [String])] = [
        (.intentHandler, ["WIDGETBUS_INTENTS", "WIDGETBUS_STATE_EVENTS", "WIDGETBUS_STATE_SNAPSHOT"]),
        (.timelineService, ["WIDGETBUS_TIMELINES", "WIDGETBUS_TIMELINE_EVENTS"]),
        (.metricsIngest, ["WIDGETBUS_METRICS", "WIDGETBUS_METRICS_EVENTS", "WIDGETBUS_METRICS_SNAPSHOT"]),
        (.syncAgent, ["WIDGETBUS_SYNC", "WIDGETBUS_SYNC_EVENTS"]),
    ]

    /// The local addresses of the TCP sockets listening on `port`, as `ss -ltn` prints them.
    static func listening(on port: Int) throws -> [String] {
        let result = try runCommand(URL(fileURLWithPath: "/bin/ss"), ["-ltnH", "sport = :\(port)"], environment: [:])
        #expect(result.status == 0, "ss: \(result.stderr)")
        return result.lines.compactMap { line in
            let columns = line.split(separator: " ", omittingEmptySubsequences: true)
            return columns.count >= 4 ? String(columns[3]) : nil
        }
    }

    static func port(of endpoint: String) -> Int {
        Int(endpoint.split(separator: ":").last!)!
    }

    @Test func byDefaultEveryPortListensOnLoopbackOnly() throws {
        let bus = try BusFixture()
        for (service, endpoints) in Self.binders {
            try bus.start(service)
            for variable in endpoints {
                let port = Self.port(of: bus.environment[variable]!)
                #expect(try Self.listening(on: port) == ["127.0.0.1:\(port)"], "\(service.rawValue) \(variable)")
            }
        }
    }

    @Test func beyondLoopbackWithoutInsecureEveryServiceRefusesToStartInOneLine() throws {
        let bus = try BusFixture()
        for (service, _) in Self.binders {
            let process = try ServiceProcess(
                name: service.rawValue, executable: BusFixture.productsDirectory.appendingPathComponent(service.rawValue),
                environment: bus.environment.merging(["WIDGETBUS_BIND_HOST": "0.0.0.0"]) { $1 }, logDirectory: bus.root)
            try bus.waitUntil("\(service.rawValue) refuses to start", timeout: 10) { !process.isRunning }
            let said = (process.output + process.log).split(separator: "\n").filter { $0.contains("refusing to listen") }
            #expect(said.count == 1, "\(service.rawValue) said: \(process.output) \(process.log)")
            #expect(said.first?.contains("WIDGETBUS_INSECURE=1") == true)
            #expect(process.terminate() != 0, "\(service.rawValue) exits with a failure")
        }
    }

    @Test func withInsecureItListensOnEveryInterface() throws {
        let bus = try BusFixture()
        try bus.start(.intentHandler, extraEnvironment: ["WIDGETBUS_BIND_HOST": "0.0.0.0", "WIDGETBUS_INSECURE": "1"])
        for variable in ["WIDGETBUS_INTENTS", "WIDGETBUS_STATE_EVENTS", "WIDGETBUS_STATE_SNAPSHOT"] {
            let port = Self.port(of: bus.environment[variable]!)
            #expect(try Self.listening(on: port) == ["0.0.0.0:\(port)"], "\(variable)")
        }
        #expect(try bus.send(.recordTension, user: "anyone", body: #"{"level":3}"#).version == 1)
    }
}
