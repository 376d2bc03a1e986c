import CZeroMQ
import Foundation
import Testing

@testable import ZeroMQ

/// Socket monitors and unbind, as the bus uses them against libzmq 4.3.4: a CURVE server's
/// monitor reports the handshakes that fail before its ZAP handler would be asked, and unbinding
/// a listener drops the connections it accepted.
@Suite("Socket monitor and unbind")
struct MonitorTests {
    /// The clients a CURVE server refuses before ZAP, and whether libzmq calls each a mechanism
    /// mismatch.
    enum Misfit: String, CaseIterable {
        case null = "a client without security (NULL)"
        case plain = "a PLAIN client"
        case wrongServerKey = "a CURVE client expecting another server key"

        func configure(_ client: ZMQSocket) throws {
            switch self {
            case .null: break
            case .plain:
                try client.setOption(ZMQ_PLAIN_USERNAME, Data("user"), name: "ZMQ_PLAIN_USERNAME")
                try client.setOption(ZMQ_PLAIN_PASSWORD, Data("password"), name: "ZMQ_PLAIN_PASSWORD")
            case .wrongServerKey:
                try client.makeCurveClient(keys: try .generate(), serverKey: try CurveKeyPair.generate().publicKey)
            }
        }
    }

    /// The next event `monitor` reports that satisfies `wanted`, waiting at most 5 s.
    static func event(from monitor: ZMQSocket, _ wanted: (ZMQSocketEvent) -> Bool) throws -> ZMQSocketEvent? {
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline {
            guard let frames = try monitor.receiveMessage() else { return nil }
            if let event = ZMQSocketEvent(frames: frames), wanted(event) { return event }
        }
        return nil
    }

    /// A PAIR reading the events `socket` reports.
    static func monitor(_ socket: ZMQSocket, _ events: ZMQSocketEvents, in fixture: Fixture) throws -> ZMQSocket {
        let address = "inproc://monitor-\(UUID().uuidString)"
        try socket.monitor(events, at: address)
        let monitor = try fixture.socket(.pair)
        try monitor.connect(address)
        return monitor
    }

    @Test("a CURVE server's monitor reports each client that fails the handshake", arguments: Misfit.allCases)
    func failedHandshakes(misfit: Misfit) throws {
        let fixture = try Fixture()
        defer { fixture.tearDown() }
        let server = try fixture.socket(.router)
        try server.makeCurveServer(keys: try .generate(), domain: "test")
        let monitor = try Self.monitor(server, [.handshakeFailedProtocol, .handshakeFailedNoDetail], in: fixture)
        let endpoint = try fixture.bind(server, over: .tcp)

        let client = try fixture.socket(.dealer)
        try misfit.configure(client)
        try client.connect(endpoint)
        try client.send("let me in", dontWait: true)

        let event = try #require(try Self.event(from: monitor) { _ in true }, "no event for \(misfit.rawValue)")
        #expect(event.event == .handshakeFailedProtocol && event.endpoint == endpoint)
        #expect(event.isMechanismMismatch == (misfit != .wrongServerKey), "0x\(String(event.value, radix: 16))")
        if misfit == .wrongServerKey { #expect(event.value == UInt32(ZMQ_PROTOCOL_ERROR_ZMTP_CRYPTOGRAPHIC)) }
        try server.setReceiveTimeout(milliseconds: 0)
        #expect(try server.receiveMessage() == nil, "nothing got through")
    }

    @Test func unbindingDropsTheConnectionsTheListenerAcceptedAndTheirClientsComeBack() throws {
        let fixture = try Fixture()
        defer { fixture.tearDown() }
        let publisher = try fixture.socket(.pub)
        let listener = try Self.monitor(publisher, .closed, in: fixture)
        let endpoint = try fixture.bind(publisher, over: .tcp)
        let subscriber = try fixture.socket(.sub)
        let connection = try Self.monitor(subscriber, .disconnected, in: fixture)
        try subscriber.subscribe("")
        try subscriber.connect(endpoint)

        /// Publishes until `condition` holds, at most 5 s. The publisher's thread handles
        /// libzmq's commands as it sends — the end of a connection an unbind dropped among them.
        func publish(until condition: () throws -> Bool) throws -> Bool {
            let deadline = ContinuousClock.now + .seconds(5)
            while ContinuousClock.now < deadline {
                try publisher.send("event")
                if try condition() { return true }
            }
            return false
        }
        /// Whether `socket` gets a message within 20 ms; takes what came.
        func arrives(at socket: ZMQSocket) throws -> Bool {
            guard try ZMQPoller.isReadable(socket, waitingMilliseconds: 20) else { return false }
            while try socket.receiveMessage(dontWait: true) != nil {}
            return true
        }
        #expect(try publish { try arrives(at: subscriber) }, "the subscriber joins")

        try publisher.unbind(endpoint)
        #expect(try publish { try arrives(at: connection) }, "the accepted connection was dropped")
        #expect(try Self.event(from: listener) { $0.event == .closed } != nil, "the listener closed, freeing the port")
        try publisher.bind(endpoint)
        #expect(try publish { try arrives(at: subscriber) }, "the subscriber reconnected by itself")
    }
}
