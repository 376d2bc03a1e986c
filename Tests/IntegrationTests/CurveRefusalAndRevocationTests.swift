import BusRuntime
import CZeroMQ
import Foundation
import ServiceSupport
import Testing
import WidgetBusProtocol

@testable import ZeroMQ

/// CURVE at its edges, against real processes and real keys: every refused handshake leaves a
/// count and a log line, whatever the client got wrong, and a key taken off an allow-list cuts
/// the connections it already had within a second of SIGHUP, while the allowed clients — and the
/// services that follow the cut publisher — carry on.
@Suite(.serialized, .blockingThreads)
struct CurveRefusalAndRevocationTests {
    // MARK: - Every refusal counted and logged

    /// The clients an endpoint refuses.
    enum Misfit: String, CaseIterable {
        case unknownKey = "a key on no allow-list"
        case null = "no security at all (NULL)"
        case plain = "PLAIN"
        case wrongServerKey = "CURVE expecting another server key"

        /// What its refusals may be counted under. A client without CURVE often sees the
        /// server's mechanism first and hangs up before the server has read its own.
        var reasons: [String] {
            switch self {
            case .unknownKey: ["key_not_allowed"]
            case .null, .plain: ["mechanism_mismatch", "handshake_incomplete"]
            case .wrongServerKey: ["handshake_failed"]
            }
        }

        /// Sets `socket` up as this client, before it connects.
        func configure(_ socket: ZMQSocket, keys: CurveKeys) throws {
            switch self {
            case .unknownKey:
                try socket.makeCurveClient(keys: try keys.keyPair(of: "stranger"), serverKey: try keys.keyPair(of: "intent-handler").publicKey)
            case .null: break
            case .plain:
                try socket.setOption(ZMQ_PLAIN_USERNAME, Data("user".utf8), name: "ZMQ_PLAIN_USERNAME")
                try socket.setOption(ZMQ_PLAIN_PASSWORD, Data("password".utf8), name: "ZMQ_PLAIN_PASSWORD")
            case .wrongServerKey:
                try socket.makeCurveClient(keys: try keys.keyPair(of: "operator"), serverKey: try CurveKeyPair.generate().publicKey)
            }
        }
    }

    @Test("a client with an unknown key, without CURVE (NULL, PLAIN) or expecting another server key is counted by reason and logged once",
          arguments: Misfit.allCases)
    func everyRefusedHandshakeIsCountedAndLogged(misfit: Misfit) throws {
        let (bus, keys) = try CurveBusTests.fixture()
        try keys.add("stranger", role: nil)
        let url = try bus.startServingMetrics(.intentHandler, extraEnvironment: keys.environment(as: "intent-handler"))
        let handler = try #require(bus.running[.intentHandler])
        /// The refusals counted under the misfit's reasons.
        func refusals() throws -> Double {
            let metrics = try PrometheusText.scrape(url)
            return misfit.reasons.reduce(0) { $0 + (metrics.value("widgetbus_curve_refusals_total", ["endpoint": "intents", "reason": $1]) ?? 0) }
        }
        #expect(try refusals() == 0)

        // Two such clients: each is counted, the reason is logged once.
        for count in 1...2 {
            let client = try TestClient(.dealer) { socket in
                try misfit.configure(socket, keys: keys)
                try socket.connect(bus.endpoint(.intents))
            }
            try client.request(.ping)
            try bus.waitUntil("intent-handler counts \(misfit.rawValue) \(count) time(s)", timeout: 10) { try refusals() >= Double(count) }
            #expect(try client.take(waitingMilliseconds: 100) == 0, "no reply")
        }
        let lines = handler.log.split(separator: "\n").filter { $0.contains("connection refused") }
        for reason in misfit.reasons {
            #expect(lines.filter { $0.contains("reason=\(reason)") }.count <= 1, "\(reason) logged once: \(lines)")
        }
        #expect(lines.contains { line in line.contains("WIDGETBUS_INTENTS") && misfit.reasons.contains { line.contains("reason=\($0)") } })
    }

    // MARK: - Revocation cuts live connections

    /// Sends a `request` every 50 ms and takes what `clients` receive, noting when, until
    /// `seconds` after `start`.
    static func exchange(for seconds: Double, after start: Date, sending request: () throws -> Void, _ clients: [TestClient]) throws {
        while Date().timeIntervalSince(start) < seconds {
            try request()
            let turn = Date()
            while Date().timeIntervalSince(turn) < 0.05 {
                for client in clients { try client.take(waitingMilliseconds: 10) }
            }
        }
    }

    /// Takes `name`'s key off the `role` allow-list and signals `services`; returns when.
    static func revoke(_ name: String, role: String, keys: CurveKeys, signalling services: [ServiceProcess]) throws -> Date {
        try FileManager.default.removeItem(at: keys.publicDirectory.appendingPathComponent("\(role)/\(name).key"))
        let signalled = Date()
        for service in services { kill(service.pid, SIGHUP) }
        return signalled
    }

    @Test("a revoked SUB gets no event 1 s after SIGHUP; an allowed SUB reconnects, and the followers miss no change")
    func aRevokedSubscriberIsCutOff() throws {
        let (bus, keys) = try CurveBusTests.fixture()
        try keys.add("watcher", role: "operators")
        let services = [
            try bus.start(.intentHandler, extraEnvironment: keys.environment(as: "intent-handler")),
            try bus.start(.timelineService, extraEnvironment: keys.environment(as: "timeline-service")),
            try bus.start(.snapshotWriter, extraEnvironment: keys.environment(as: "snapshot-writer")),
        ]
        let revoked = try TestClient.subscriber(to: .stateEvents, as: "watcher", keys: keys, bus: bus)
        let allowed = try TestClient.subscriber(to: .stateEvents, as: "operator", keys: keys, bus: bus)
        let app = try TestClient(.dealer) { try $0.connectAs("app", keys: keys, bus: bus, to: .intents) }
        let user = "revocation-sub"
        let tension = { try app.request(.recordTension, user: user, body: #"{"level":3}"#) }

        try bus.waitUntil("both subscribers get events", timeout: 10) {
            try tension()
            try app.take(waitingMilliseconds: 50)
            try revoked.take(waitingMilliseconds: 0)
            try allowed.take(waitingMilliseconds: 0)
            return !revoked.arrivals.isEmpty && !allowed.arrivals.isEmpty
        }
        let signalled = try Self.revoke("watcher", role: "operators", keys: keys, signalling: services)
        try Self.exchange(for: 3, after: signalled, sending: tension, [revoked, allowed, app])

        let cutOff = signalled.addingTimeInterval(1)
        #expect(revoked.arrivals.allSatisfy { $0 < cutOff }, "the revoked SUB still got \(revoked.arrivals.filter { $0 >= cutOff }.count) message(s) after 1 s")
        #expect(allowed.arrivals.contains { $0 >= cutOff }, "the allowed SUB reconnected and gets events")
        let watcher = try keys.keyPair(of: "watcher").publicKey
        try bus.waitUntil("intent-handler refuses the revoked key's reconnects", timeout: 10) {
            services[0].log.split(separator: "\n").contains { $0.contains("connection refused") && $0.contains(watcher) }
        }
        // Every change reached timeline-service, which follows the cut publisher, and its own
        // follower: the timeline and the snapshot file show the last one.
        app.close()
        let last = try bus.send(.recordTension, user: user, body: #"{"level":5}"#).version
        #expect(try bus.tensionTimeline(user: user, atLeastVersion: last).stateVersion == last)
        _ = try bus.tensionSnapshot(user: user, version: last)
        #expect(services.allSatisfy { $0.isRunning })
    }

    @Test("a revoked DEALER gets no reply 1 s after SIGHUP; an allowed client still gets replies")
    func aRevokedRequesterIsCutOff() throws {
        let (bus, keys) = try CurveBusTests.fixture()
        try keys.add("revoked-app", role: "publishers")
        let handler = try bus.start(.intentHandler, extraEnvironment: keys.environment(as: "intent-handler"))
        let revoked = try TestClient(.dealer) { try $0.connectAs("revoked-app", keys: keys, bus: bus, to: .intents) }
        let allowed = try TestClient(.dealer) { try $0.connectAs("app", keys: keys, bus: bus, to: .intents) }
        let ping = {
            try revoked.request(.ping)
            try allowed.request(.ping)
        }

        try bus.waitUntil("both get replies", timeout: 10) {
            try ping()
            try revoked.take(waitingMilliseconds: 50)
            try allowed.take(waitingMilliseconds: 0)
            return !revoked.arrivals.isEmpty && !allowed.arrivals.isEmpty
        }
        let signalled = try Self.revoke("revoked-app", role: "publishers", keys: keys, signalling: [handler])
        try Self.exchange(for: 3, after: signalled, sending: ping, [revoked, allowed])

        let cutOff = signalled.addingTimeInterval(1)
        #expect(revoked.arrivals.allSatisfy { $0 < cutOff }, "the revoked DEALER still got \(revoked.arrivals.filter { $0 >= cutOff }.count) reply(ies) after 1 s")
        #expect(allowed.arrivals.contains { $0 >= cutOff }, "the allowed client gets replies")
        #expect(handler.isRunning)
    }
}

/// A client of the bus inside the test process — a DEALER on a request endpoint, a SUB on an
/// event endpoint — that notes when each message arrives.
final class TestClient {
    private let context: ZMQContext
    private let socket: ZMQSocket
    /// When each message arrived.
    private(set) var arrivals: [Date] = []

    init(_ type: ZMQSocketType, _ configure: (ZMQSocket) throws -> Void) throws {
        context = try ZMQContext()
        socket = try ZMQSocket(context: context, type: type)
        try socket.setLinger(milliseconds: 0)
        try configure(socket)
    }

    deinit {
        socket.close()
        context.terminate()
    }

    /// Closes the socket, dropping what it has not sent.
    func close() {
        socket.close()
    }

    /// A SUB of every event at `endpoint`, with `name`'s key.
    static func subscriber(to endpoint: BusEndpoint, as name: String, keys: CurveKeys, bus: BusFixture) throws -> TestClient {
        try TestClient(.sub) { socket in
            try socket.subscribe("")
            try socket.connectAs(name, keys: keys, bus: bus, to: endpoint)
        }
    }

    /// Sends a request of `type` (a DEALER's, after the empty delimiter), unless it cannot be
    /// queued now: a client cut off has nowhere to send it.
    func request(_ type: MessageType, user: String? = nil, body: String = "{}") throws {
        let envelope = RawClient.envelope(type: type.rawValue, user: user, body: body)
        try socket.send([Data(), Data(envelope.utf8)], dontWait: true)
    }

    /// Takes every message that arrives within `milliseconds`; returns how many.
    @discardableResult
    func take(waitingMilliseconds milliseconds: Int) throws -> Int {
        guard try ZMQPoller.isReadable(socket, waitingMilliseconds: milliseconds) else { return 0 }
        var taken = 0
        while try socket.receiveMessage(dontWait: true) != nil {
            arrivals.append(Date())
            taken += 1
        }
        return taken
    }
}

extension ZMQSocket {
    /// Connects to `bus`'s `endpoint` as the CURVE client `name` of `keys`.
    func connectAs(_ name: String, keys: CurveKeys, bus: BusFixture, to endpoint: BusEndpoint) throws {
        let security = try BusSecurity.Settings(environment: bus.environment.merging(keys.environment(as: name)) { $1 })
        try connect(bus.endpoint(endpoint), security: security)
    }
}

extension CurveKeys {
    /// `name`'s key pair, from its secret file.
    func keyPair(of name: String) throws -> CurveKeyPair {
        try CurveCertificate.keyPair(from: URL(fileURLWithPath: environment(as: name)[BusSecurity.secretKeyFile.variable]!))
    }
}
