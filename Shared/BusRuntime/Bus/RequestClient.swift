import Foundation
import WidgetBusProtocol
import ZeroMQ

/// A request/reply client that survives a lost request or a restarted server (the zguide's
/// Lazy Pirate): it waits for a reply with a timeout, and on silence closes its REQ socket
/// (stuck otherwise), opens a new one and resends the same bytes, a bounded number of times.
///
/// Resending is safe because servers are idempotent by request id. Owned by one thread.
public final class RequestClient {
    public struct NoReply: Error, CustomStringConvertible {
        public let endpoint: String
        public let attempts: Int
        public let timeoutMilliseconds: Int
        public var description: String {
            "no reply from \(endpoint) after \(attempts) attempt(s) of \(timeoutMilliseconds) ms"
        }
    }

    private let context: ZMQContext
    public let endpoint: String
    public let timeoutMilliseconds: Int
    public let attempts: Int
    private let security: BusSecurity.Settings?
    private var socket: ZMQSocket?

    /// - Parameter security: CURVE keys to connect with; nil in the clear.
    public init(
        context: ZMQContext, endpoint: String, timeoutMilliseconds: Int = 2_000, attempts: Int = 3,
        security: BusSecurity.Settings?
    ) {
        self.context = context
        self.security = security
        self.endpoint = endpoint
        self.timeoutMilliseconds = timeoutMilliseconds
        self.attempts = max(1, attempts)
    }

    deinit {
        socket?.close()
    }

    /// Sends `payload` and returns the reply payload.
    public func request(_ payload: Data) throws -> Data {
        for _ in 0..<attempts {
            let socket = try connectedSocket()
            try socket.send(payload)
            if try ZMQPoller.isReadable(socket, waitingMilliseconds: timeoutMilliseconds), let frames = try socket.receiveMessage(),
                let reply = frames.last
            {
                return reply
            }
            socket.close()
            self.socket = nil
        }
        throw NoReply(endpoint: endpoint, attempts: attempts, timeoutMilliseconds: timeoutMilliseconds)
    }

    private func connectedSocket() throws -> ZMQSocket {
        if let socket { return socket }
        let socket = try ZMQSocket(context: context, type: .req)
        try socket.setLinger(milliseconds: 0)
        try socket.setMaxMessageSize(bytes: ProtocolLimits.maxTransportBytes)
        try socket.connect(endpoint, security: security)
        self.socket = socket
        return socket
    }
}
