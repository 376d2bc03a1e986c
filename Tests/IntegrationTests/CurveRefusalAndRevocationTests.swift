import CZeroMQ
import Foundation
import ServiceSupport
import Testing
import WidgetBusProtocol

@testable import ZeroMQ

/// CURVE at its edges, against real processes and real keys: every refused handshake leaves a
/// count and a log line, whatever the client got wrong.
@Suite(.serialized)
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
}

/// A client of the bus inside the test process that notes when each message arrives.
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

extension CurveKeys {
    /// `name`'s key pair, from its secret file.
    func keyPair(of name: String) throws -> CurveKeyPair {
        try CurveCertificate.keyPair(from: URL(fileURLWithPath: environment(as: name)[BusSecurity.secretKeyFile.variable]!))
    }
}
