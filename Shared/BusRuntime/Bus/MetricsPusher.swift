import Foundation
import WidgetBusProtocol
import ZeroMQ

/// Pushes messages to metrics-ingest's PULL endpoint. PUSH has no reply, so "delivered" here
/// means handed to a connected peer's TCP stream: `ZMQ_IMMEDIATE` queues nothing for a peer
/// that is not connected, a send that cannot be queued within the timeout fails, and
/// ``finish()`` waits (up to the timeout) for everything queued to be written before the CLI
/// exits. Whether a sample was then accepted is what metrics-ingest's status request tells.
public final class MetricsPusher {
    public struct NotDelivered: Error, CustomStringConvertible {
        public let endpoint: String
        public let timeoutMilliseconds: Int
        public var description: String {
            "metrics-ingest at \(endpoint) took no message within \(timeoutMilliseconds) ms — is it running?"
        }
    }

    /// Its own context, terminated by ``finish()`` so the linger flushes the last messages.
    private let context: ZMQContext
    private let socket: ZMQSocket
    public let endpoint: String
    public let timeoutMilliseconds: Int

    /// - Parameter security: CURVE keys to connect with; nil in the clear.
    public init(endpoint: String, timeoutMilliseconds: Int, security: BusSecurity.Settings?) throws {
        context = try ZMQContext()
        socket = try ZMQSocket(context: context, type: .push)
        try socket.setImmediate(true)
        try socket.setSendTimeout(milliseconds: Int32(clamping: timeoutMilliseconds))
        try socket.setLinger(milliseconds: Int32(clamping: timeoutMilliseconds))
        try socket.connect(endpoint, security: security)
        self.endpoint = endpoint
        self.timeoutMilliseconds = timeoutMilliseconds
    }

    /// Queues one message, waiting at most the timeout for room (back-pressure) or a peer.
    public func push(_ payload: Data) throws {
        guard try socket.send(payload) else {
            throw NotDelivered(endpoint: endpoint, timeoutMilliseconds: timeoutMilliseconds)
        }
    }

    /// Closes the socket and waits, at most the linger, until queued messages are written.
    public func finish() {
        socket.close()
        context.terminate()
    }
}
