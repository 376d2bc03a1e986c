import Foundation
import Logging
import ServiceSupport
import WidgetBusProtocol
import ZeroMQ

/// Requests to one ROUTER on a DEALER of the bus, each sent again — the same bytes, so the same
/// id — when no answer came within ``resendAfter``, until it is answered or has been sent
/// ``attempts`` times.
///
/// Resending is safe because the servers are idempotent by request id. An `unavailable` or
/// `internal` error reply (the server shed the request, or failed before committing it) counts
/// as no answer yet: the request is sent again when its wait is over, and when the attempts run
/// out that reply is its answer. Deadlines are on the bus's clock: a step of it moves them. A DEALER, unlike a REQ socket, is never stuck on a lost reply, so one socket
/// carries every request, many in flight, on the bus's own thread: nothing blocks waiting for a
/// round trip, and a stop is never held by one. Owned by the bus's thread, and kept by the bus
/// (its handlers hold it) for as long as the bus runs.
public final class ResendingRequester {
    /// A request sent ``attempts`` times without an answer.
    public struct NoReply: Error, CustomStringConvertible {
        public let endpoint: String
        public let attempts: Int
        public let resendAfter: TimeInterval
        public var description: String {
            "no reply from \(endpoint) after \(attempts) attempt(s) of \(resendAfter) s"
        }
    }

    /// Called with each request's outcome, once: its reply's payload (an error reply of the last
    /// attempt included), or ``NoReply`` when no reply came at all.
    public typealias Answer = (_ id: String, _ outcome: Result<Data, NoReply>) -> Void

    private struct Waiting {
        var payload: Data
        var sent: Int
        var deadline: Date
        /// The last `unavailable` or `internal` reply: the answer if the attempts run out.
        var lastRefusal: Data?
    }

    private var waiting: [String: Waiting] = [:]
    private var socket: ZMQSocket!
    private let clock: any WallClock
    private let endpoint: String
    private let resendAfter: TimeInterval
    /// How many times a request is sent before it fails with ``NoReply``; nil: until answered.
    private let attempts: Int?
    private let logger: Logger

    public init(
        bus: Bus, endpoint: String, resendAfter: TimeInterval, attempts: Int?, logger: Logger, answer: @escaping Answer
    ) throws {
        clock = bus.clock
        self.endpoint = endpoint
        self.resendAfter = resendAfter
        self.attempts = attempts.map { max(1, $0) }
        self.logger = logger
        socket = try bus.dealer(connectedTo: endpoint) { [self] frames in
            guard let payload = frames.last else { return }
            let reply = JSONFieldScanner(payload)
            guard let id = reply.string("inReplyTo"), waiting[id] != nil else { return }
            switch reply.string("type") == MessageType.error.rawValue ? reply.object("body")?.string("code") : nil {
            case ErrorCode.unavailable.rawValue?, ErrorCode.internalError.rawValue?:
                waiting[id]?.deadline = clock.now.addingTimeInterval(resendAfter)  // sent again then
                waiting[id]?.lastRefusal = payload
            default:
                waiting[id] = nil
                answer(id, .success(payload))
            }
        }
        bus.timer(dueAt: { [self] in waiting.values.lazy.map(\.deadline).min() }) { [self] now in
            for (id, request) in waiting where request.deadline <= now {
                if let attempts, request.sent >= attempts {
                    waiting[id] = nil
                    answer(id, request.lastRefusal.map { .success($0) } ?? .failure(NoReply(endpoint: endpoint, attempts: attempts, resendAfter: resendAfter)))
                    continue
                }
                logger.warning(
                    "no answer yet: sending the request again", metadata: ["widgetbus.request_id": "\(id)", "widgetbus.endpoint": "\(endpoint)"])
                try transmit(id, request.payload, now: now)
            }
        }
    }

    /// Sends `payload`, an envelope whose id is `id`.
    public func send(_ payload: Data, id: String, now: Date) throws {
        try transmit(id, payload, now: now)
    }

    /// Forgets every request waiting: answers that come later are dropped.
    public func abandonAll() {
        waiting.removeAll()
    }

    private func transmit(_ id: String, _ payload: Data, now: Date) throws {
        // Not sent (the peer not connected, its queue full): the deadline sends it again.
        _ = try socket.send([Data(), payload], dontWait: true)
        let earlier = waiting[id]
        waiting[id] = Waiting(
            payload: payload, sent: (earlier?.sent ?? 0) + 1, deadline: now.addingTimeInterval(resendAfter), lastRefusal: earlier?.lastRefusal)
    }
}
