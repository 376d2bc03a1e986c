import DequeModule
import Dispatch
import Foundation
import Metrics
import Observability

/// How a request endpoint bounds the wait of requests that arrive faster than it answers them.
///
/// Left in libzmq's queues, such requests wait unseen and without bound: the service cannot
/// tell how long one has waited, so under overload every request waits longer than the last
/// and a client's deadline passes long before its answer, while the service still spends its
/// time on it. With an admission, the bus takes the requests waiting on the socket each turn
/// (up to ``RequestQueue/drainLimit``) into a queue of its own, stamped with the time it took
/// them, hands its handler the oldest up to the batch, and answers `unavailable` — retry
/// shortly, nothing was done — to a request that waited ``longestWait`` or that finds
/// ``mostWaitingBytes`` already waiting. A refusal costs a small fraction of handling a
/// request, so the queue stays bounded however much is offered, and the service stays at most
/// ``longestWait`` behind for as long as it can refuse what arrives. While the endpoint is held
/// (a follower of the service is behind, ``FollowerLag``) nothing is handed over: requests wait
/// in the queue, within the same bounds, until the hold ends or their wait runs out.
public struct RequestAdmission: Sendable {
    /// The longest a request waits, from the turn that takes it off the socket, before it is refused.
    public var longestWait: TimeInterval
    /// The most payload bytes that wait at once; a request that would go past it is refused at once.
    public var mostWaitingBytes: Int

    public init(longestWait: TimeInterval, mostWaitingBytes: Int = 16 << 20) {
        self.longestWait = longestWait
        self.mostWaitingBytes = mostWaitingBytes
    }
}

/// The requests a ``Bus`` endpoint with a ``RequestAdmission`` has taken off its socket and not
/// yet handed to its handler, oldest first. Owned by the bus's thread.
final class RequestQueue {
    /// The most requests one turn takes off the socket: a flood cannot hold a turn longer than
    /// refusing this many takes; the rest is taken on the next turn, which comes at once.
    static let drainLimit = 4_096

    struct Waiting {
        var frames: [Data]
        /// When the bus took it off the socket, on the bus's clock: what the wait is measured from.
        var taken: Date
        /// The same moment on the monotonic clock, for the request's latency metric.
        var uptime: DispatchTime
        var bytes: Int
    }

    let admission: RequestAdmission
    private var waiting = Deque<Waiting>()
    private var waitingBytes = 0
    /// `widgetbus_bus_requests_waiting{endpoint}`
    private let depth: Gauge
    /// `widgetbus_bus_requests_shed_total{endpoint}`
    private let shedCount: Counter

    init(_ admission: RequestAdmission, endpoint: String) {
        self.admission = admission
        depth = Gauge(MetricCatalog.busRequestsWaiting, ["endpoint": endpoint])
        shedCount = Counter(MetricCatalog.busRequestsShed, ["endpoint": endpoint])
    }

    var isEmpty: Bool { waiting.isEmpty }

    /// Queues a request taken off the socket at `now`; false when the queue is full. An empty
    /// queue takes any request, so that one larger than the bound is still handled.
    func add(_ frames: [Data], at now: Date, uptime: DispatchTime) -> Bool {
        let bytes = frames.reduce(0) { $0 + $1.count }
        guard waiting.isEmpty || waitingBytes + bytes <= admission.mostWaitingBytes else { return false }
        waiting.append(Waiting(frames: frames, taken: now, uptime: uptime, bytes: bytes))
        waitingBytes += bytes
        return true
    }

    /// The requests at the front that waited ``RequestAdmission/longestWait`` or longer at `now`.
    /// The wait is on the bus's clock, which a test sets; should that clock step back, the
    /// waits start again from `now` rather than stop being counted until it catches up (a step
    /// forward refuses what waits: a refusal is safe to resend).
    func takeExpired(at now: Date) -> [Waiting] {
        if let newest = waiting.last, newest.taken > now {
            for index in waiting.indices { waiting[index].taken = min(waiting[index].taken, now) }
        }
        var expired: [Waiting] = []
        while let oldest = waiting.first, now.timeIntervalSince(oldest.taken) >= admission.longestWait {
            expired.append(removeFirst())
        }
        return expired
    }

    /// When the oldest request's wait runs out; nil when none waits.
    var nextExpiry: Date? {
        waiting.first.map { $0.taken.addingTimeInterval(admission.longestWait) }
    }

    /// The oldest `count` requests, to handle now.
    func takeNext(_ count: Int) -> [Waiting] {
        var next: [Waiting] = []
        while next.count < count, !waiting.isEmpty { next.append(removeFirst()) }
        return next
    }

    /// Every request still waiting.
    func takeAll() -> [Waiting] {
        takeNext(waiting.count)
    }

    /// Counts a request refused, unhandled.
    func shed() {
        shedCount.increment()
    }

    /// Records how many requests wait, after a turn.
    func recordDepth() {
        depth.record(waiting.count)
    }

    private func removeFirst() -> Waiting {
        let first = waiting.removeFirst()
        waitingBytes -= first.bytes
        return first
    }
}
