import BusRuntime
import Foundation
import ServiceSupport
import Testing
import WidgetBusProtocol
import ZeroMQ

/// The bus with CURVE, real processes and real keys: an endpoint lets in the keys of its
/// allow-list and nothing else — no reply, no event, no change — keeps serving those it allows,
/// takes a new key after SIGHUP, and carries nothing readable on the wire.
@Suite(.serialized, .blockingThreads)
struct CurveBusTests {
    /// A fixture whose widgetctl runs with the operator's key, and its keys.
    static func fixture() throws -> (bus: BusFixture, keys: CurveKeys) {
        let bus = try BusFixture()
        let keys = try CurveKeys(under: bus.root.appendingPathComponent("curve"))
        bus.environment.merge(keys.environment(as: "operator")) { $1 }
        return (bus, keys)
    }

    /// widgetctl with `environment` instead of the fixture's keys.
    static func widgetctl(_ bus: BusFixture, _ environment: [String: String], _ arguments: String...) throws -> CommandResult {
        try widgetctl(bus, environment, arguments)
    }

    static func widgetctl(_ bus: BusFixture, _ environment: [String: String], _ arguments: [String]) throws -> CommandResult {
        try runCommand(
            BusFixture.productsDirectory.appendingPathComponent("widgetctl"), arguments,
            environment: bus.environment.merging(environment) { $1 })
    }

    /// The environment of a client that does not use CURVE at all.
    static let plain = [BusSecurity.secretKeyFile.variable: "", BusSecurity.keysDirectory.variable: ""]

    @Test func anEndpointLetsInItsAllowListAndNothingElse() throws {
        let (bus, keys) = try Self.fixture()
        let handler = try bus.start(.intentHandler, extraEnvironment: keys.environment(as: "intent-handler"))
        let quick = ["--timeout", "500", "--attempts", "1"]

        // Allowed clients get widgetctl's default patience (a retry keeps its id, so it changes
        // nothing twice): only the refusals need the short wait.
        let allowed = try Self.widgetctl(
            bus, keys.environment(as: "app"), ["send", "RecordTensionIntent", "--user", "u", "--body", #"{"level":3}"#])
        #expect(allowed.status == 0, "a publisher's intent is answered: \(allowed.stderr)")

        let stranger = try keys.add("stranger", role: nil)
        for (who, environment) in [
            ("an unknown key", keys.environment(as: "stranger")), ("no CURVE", Self.plain), ("a gateway's key", keys.environment(as: "gateway")),
        ] {
            let refused = try Self.widgetctl(
                bus, environment, ["send", "RecordTensionIntent", "--user", "u", "--body", #"{"level":5}"#] + quick)
            #expect(refused.status == 2, "\(who): no reply at all, got \(refused.status) \(refused.stdout)")
        }
        // Nothing refused changed anything: the next allowed intent is the second change.
        let next = try Self.widgetctl(
            bus, keys.environment(as: "app"), ["send", "RecordTensionIntent", "--user", "u", "--body", #"{"level":3}"#])
        #expect(next.status == 0)
        #expect(try bus.codec.decode(Envelope<StateRecordHeader>.self, from: next.stdoutData).body.version == 2)

        // A publisher's key on the state events: no event reaches it; the operator's gets them.
        let publisherWatch = try ServiceProcess(
            name: "watch-app", executable: BusFixture.productsDirectory.appendingPathComponent("widgetctl"),
            environment: bus.environment.merging(keys.environment(as: "app")) { $1 }, logDirectory: bus.root,
            arguments: ["watch", "--topic", "state.", "--seconds", "3"])
        let operatorWatch = try ServiceProcess(
            name: "watch-operator", executable: BusFixture.productsDirectory.appendingPathComponent("widgetctl"),
            environment: bus.environment, logDirectory: bus.root, arguments: ["watch", "--topic", "state.", "--count", "1", "--seconds", "10"])
        try bus.waitUntil("the operator's watch sees an event", timeout: 15) {
            _ = try Self.widgetctl(bus, keys.environment(as: "app"), "send", "RecordTensionIntent", "--user", "u", "--body", #"{"level":3}"#)
            return !operatorWatch.isRunning
        }
        try bus.waitUntil("the publisher's watch ends", timeout: 10) { !publisherWatch.isRunning }
        #expect(operatorWatch.output.contains("StateChanged"))
        #expect(publisherWatch.terminate() == 0, "the publisher's watch ran its time: \(publisherWatch.log)")
        #expect(publisherWatch.output.isEmpty, "a publisher key follows no one's events: \(publisherWatch.output)")
        let app = try keys.keyPair(of: "app")

        // Each refused key is logged, by its public key, once per endpoint: the stranger's on the
        // intents, the app's on the state events (its watch was refused, not idle).
        let log = handler.log
        #expect(log.contains("connection refused") && log.contains(stranger.publicKey))
        #expect(log.components(separatedBy: stranger.publicKey).count - 1 == 1, "logged once")
        let refusedApp = log.split(separator: "\n").filter { $0.contains("connection refused") && $0.contains(app.publicKey) }
        #expect(refusedApp.count == 1 && refusedApp.first?.contains("WIDGETBUS_STATE_EVENTS") == true, "\(refusedApp)")
        // The service's own secret appears nowhere it writes.
        let own = try keys.keyPair(of: "intent-handler")
        #expect(!log.contains(own.secretKey) && !allowed.stdout.contains(own.secretKey) && !allowed.stderr.contains(own.secretKey))
    }

    @Test func aKeyAddedToTheAllowListWorksAfterSIGHUPWithoutARestart() throws {
        let (bus, keys) = try Self.fixture()
        let handler = try bus.start(.intentHandler, extraEnvironment: keys.environment(as: "intent-handler"))
        let newcomer = keys.environment(as: "newcomer")
        try keys.add("newcomer", role: nil)
        let send = ["send", "ResetWidgetIntent", "--user", "n", "--timeout", "500", "--attempts", "1"]
        #expect(try Self.widgetctl(bus, newcomer, send).status == 2, "not on the list yet")

        // Listed, but not read until the signal.
        let secret = try keys.keyPair(of: "newcomer")
        let publishers = keys.publicDirectory.appendingPathComponent("publishers")
        try "curve\n    public-key = \"\(secret.publicKey)\"\n".write(
            to: publishers.appendingPathComponent("newcomer.key"), atomically: true, encoding: .utf8)
        kill(handler.pid, SIGHUP)
        try bus.waitUntil("intent-handler reloads its allow-lists", timeout: 10) { handler.log.contains("allow-lists reloaded") }
        #expect(try Self.widgetctl(bus, newcomer, send).status == 0, "let in after SIGHUP")
        #expect(handler.isRunning, "the same process")
    }

    @Test func beyondLoopbackWithCurveNeedsNoInsecure() throws {
        let (bus, keys) = try Self.fixture()
        try bus.start(.intentHandler, extraEnvironment: keys.environment(as: "intent-handler").merging(["WIDGETBUS_BIND_HOST": "0.0.0.0"]) { $1 })
        let port = BindingTests.port(of: bus.environment["WIDGETBUS_INTENTS"]!)
        #expect(try BindingTests.listening(on: port) == ["0.0.0.0:\(port)"])
    }

    @Test func theWholePipelineRunsOnCurveAndTheWireShowsNoUserOrBody() throws {
        let (bus, keys) = try Self.fixture()
        let services = [
            try bus.start(.intentHandler, extraEnvironment: keys.environment(as: "intent-handler")),
            try bus.start(.timelineService, extraEnvironment: keys.environment(as: "timeline-service")),
            try bus.start(.snapshotWriter, extraEnvironment: keys.environment(as: "snapshot-writer")),
        ]

        // The app reaches intent-handler through a relay that records every byte.
        let intentsPort = BindingTests.port(of: bus.environment["WIDGETBUS_INTENTS"]!)
        let relay = try TCPRelay(to: intentsPort)
        var app = keys.environment(as: "app")
        app["WIDGETBUS_INTENTS"] = "tcp://127.0.0.1:\(relay.port)"
        let user = "curve-user-7c1e"
        let sent = try Self.widgetctl(
            bus, app, "send", "RecordTensionIntent", "--user", user, "--body", #"{"level":10}"#, "--timeline", "TensionCheckWidget")
        #expect(sent.status == 0 && sent.lines.count == 2, "reply and timeline over CURVE: \(sent.stdout) \(sent.stderr)")
        #expect(sent.lines.last?.contains("suggestion") == true)
        _ = try bus.tensionSnapshot(user: user, version: 1)  // snapshot-writer followed timeline-service over CURVE

        // The reload signal ends none of them, snapshot-writer (which serves nothing) included:
        // the next change still reaches the file.
        for service in services { kill(service.pid, SIGHUP) }
        let again = try Self.widgetctl(bus, keys.environment(as: "app"), "send", "ResetWidgetIntent", "--user", user)
        #expect(again.status == 0)
        _ = try bus.tensionSnapshot(user: user, version: 2)
        #expect(services.allSatisfy { $0.isRunning })

        let wire = relay.bytes
        #expect(wire.count > 200, "the relay carried the exchange")
        for plaintext in [user, "RecordTensionIntent", "level", "StateReply", "suggestion"] {
            #expect(wire.range(of: Data(plaintext.utf8)) == nil, "\(plaintext) crossed the wire in the clear")
        }

        // The same relay in front of a bus without CURVE reads the user and the body.
        let clear = try BusFixture()
        try clear.start(.intentHandler)
        let clearRelay = try TCPRelay(to: BindingTests.port(of: clear.environment["WIDGETBUS_INTENTS"]!))
        let plain = try Self.widgetctl(
            clear, Self.plain.merging(["WIDGETBUS_INTENTS": "tcp://127.0.0.1:\(clearRelay.port)"]) { $1 }, "send", "RecordTensionIntent",
            "--user", user, "--body", #"{"level":10}"#)
        #expect(plain.status == 0)
        #expect(clearRelay.bytes.range(of: Data(user.utf8)) != nil && clearRelay.bytes.range(of: Data("StateReply".utf8)) != nil)
    }
}

/// The part of a `StateReply` body this suite reads.
private struct StateRecordHeader: Decodable {
    var version: UInt64
}
