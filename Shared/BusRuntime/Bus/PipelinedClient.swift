import Foundation
import WidgetBusProtocol
import ZeroMQ

/// Sends a stream of requests to one ROUTER with many in flight on a DEALER, for load tools and
/// tests that must offer more than one round trip at a time. Unlike ``RequestClient`` it never
/// resends: silence past the timeout is an error. Owned by one thread.
public final class PipelinedClient {
    public struct Silence: Error, CustomStringConvertible {
        public let endpoint: String
        public let unanswered: Int
        public let timeoutMilliseconds: Int
        public var description: String {
            "\(unanswered) request(s) to \(endpoint) unanswered after \(timeoutMilliseconds) ms of silence"
        }
    }

    private let socket: ZMQSocket
    public let endpoint: String
    public let timeoutMilliseconds: Int

    /// - Parameter security: CURVE keys to connect with; nil in the clear.
    public init(context: ZMQContext, endpoint: String, timeoutMilliseconds: Int = 10_000, security: BusSecurity.Settings?) throws {
        socket = try ZMQSocket(context: context, type: .dealer)
        try socket.setLinger(milliseconds: 0)
        try socket.setMaxMessageSize(bytes: ProtocolLimits.maxTransportBytes)
        try socket.connect(endpoint, security: security)
        self.endpoint = endpoint
        self.timeoutMilliseconds = timeoutMilliseconds
    }

    deinit {
        socket.close()
    }

    /// Sends `payload(i)` for each i in `0..<count`, keeping at most `window` unanswered, and
    /// hands each reply payload to `reply` as it arrives (in the server's order).
    public func exchange(count: Int, window: Int, payload: (Int) throws -> Data, reply: (Data) throws -> Void) throws {
        var sent = 0
        var received = 0
        var lastReply = ContinuousClock.now
        while received < count {
            while sent < count, sent - received < max(1, window) {
                try socket.send([Data(), try payload(sent)])  // the empty frame makes a ROUTER see a REQ peer
                sent += 1
            }
            if try ZMQPoller.isReadable(socket, waitingMilliseconds: timeoutMilliseconds) {
                while let frames = try socket.receiveMessage(dontWait: true) {
                    received += 1
                    lastReply = .now
                    if let payload = frames.last { try reply(payload) }
                }
            } else if ContinuousClock.now - lastReply >= .milliseconds(timeoutMilliseconds) {
                throw Silence(endpoint: endpoint, unanswered: sent - received, timeoutMilliseconds: timeoutMilliseconds)
            }
        }
    }
}
