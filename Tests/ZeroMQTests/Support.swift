import Foundation
import ZeroMQ

/// The transports every pattern test runs over.
enum Transport: String, CaseIterable, Sendable {
    case inproc, tcp
}


/// One context plus the sockets a test made; `tearDown()` closes them (linger 0) and
/// terminates the context, so no test can hang in `zmq_ctx_term`.
final class Fixture {
    let context: ZMQContext
    private var sockets: [ZMQSocket] = []

    init() throws {
        context = try ZMQContext()
    }

    /// A socket with linger 0 and 5 s send/receive timeouts, so a broken test fails
    /// instead of blocking forever.
    func socket(_ type: ZMQSocketType) throws -> ZMQSocket {
        let socket = try ZMQSocket(context: context, type: type)
        try socket.setLinger(milliseconds: 0)
        try socket.setReceiveTimeout(milliseconds: 5_000)
        try socket.setSendTimeout(milliseconds: 5_000)
        sockets.append(socket)
        return socket
    }

    /// Binds `server` on a fresh endpoint of `transport` and connects `client` to it.
    func link(_ server: ZMQSocket, _ client: ZMQSocket, over transport: Transport) throws {
        let endpoint = try bind(server, over: transport)
        try client.connect(endpoint)
    }

    /// Binds to a fresh endpoint (an ephemeral port for TCP) and returns the endpoint to
    /// connect to.
    func bind(_ socket: ZMQSocket, over transport: Transport) throws -> String {
        switch transport {
        case .inproc:
            let endpoint = "inproc://test-\(UUID().uuidString)"
            try socket.bind(endpoint)
            return endpoint
        case .tcp:
            try socket.bind("tcp://127.0.0.1:*")
            return try socket.lastEndpoint
        }
    }

    func tearDown() {
        for socket in sockets {
            try? socket.setLinger(milliseconds: 0)
            socket.close()
        }
        sockets.removeAll()
        context.terminate()
    }
}

extension Data {
    init(_ text: String) { self.init(text.utf8) }
    var text: String { String(decoding: self, as: UTF8.self) }
}

/// Milliseconds since `start`.
func milliseconds(since start: ContinuousClock.Instant) -> Double {
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) * 1_000 + Double(elapsed.components.attoseconds) / 1e15
}
