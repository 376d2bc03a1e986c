import Foundation
import WidgetBusProtocol

/// Timeline requests that asked to read their own writes (a `minimumVersion`) before
/// timeline-service's state replica reached that version. intent-handler acknowledges a change
/// before its event reaches the replica, so such a request waits here instead of being answered
/// with a timeline that does not show the change: it is answered on the first turn the replica
/// has the version, or `unavailable` once it has waited ``longestWait``.
///
/// The wait is bounded by time and by count, so a request for a version that never comes (a
/// mistyped number, a replaced store) costs the service nothing lasting. Owned by the bus's thread.
struct WaitingTimelineRequests {
    struct Waiting {
        /// A `TimelineRequest` with a `minimumVersion`.
        let request: TimelinesRequest
        /// The routing frames its reply goes back along.
        let route: [Data]
        let deadline: Date
    }

    /// How long a request waits for its version: under a client's usual 2-second reply timeout,
    /// so the client hears `unavailable` rather than silence, and far above the replica's usual
    /// lag of a few milliseconds.
    static let longestWait: TimeInterval = 1
    /// The most requests that wait at once; one more is answered `unavailable` at once.
    static let capacity = 10_000

    /// In arrival order. Each waits the same ``longestWait``, but deadlines come from the wall
    /// clock, which may step back, so they are not assumed to be in order.
    private var waiting: [Waiting] = []

    var count: Int { waiting.count }
    var isFull: Bool { count >= Self.capacity }
    /// When the first waiting request runs out of time.
    var nextDeadline: Date? { waiting.lazy.map(\.deadline).min() }

    /// Adds a request that arrived at `now`.
    mutating func add(_ request: TimelinesRequest, route: [Data], now: Date) {
        waiting.append(Waiting(request: request, route: route, deadline: now.addingTimeInterval(Self.longestWait)))
    }

    /// Takes the requests `isAnswerable` accepts, in arrival order.
    mutating func takeAnswerable(_ isAnswerable: (Waiting) -> Bool) -> [Waiting] {
        guard !waiting.isEmpty else { return [] }
        var answerable: [Waiting] = []
        waiting.removeAll { request in
            guard isAnswerable(request) else { return false }
            answerable.append(request)
            return true
        }
        return answerable
    }

    /// Takes the requests whose wait ended at or before `now`, in arrival order.
    mutating func takeExpired(at now: Date) -> [Waiting] {
        takeAnswerable { $0.deadline <= now }
    }

    /// Takes every waiting request, in arrival order.
    mutating func takeAll() -> [Waiting] {
        defer { waiting.removeAll() }
        return waiting
    }
}

extension TimelinesRequest {
    /// The version a timeline request asks to be answered at (read your own writes); nil for a
    /// request that asks for none, or for no timeline.
    var minimumVersion: UInt64? {
        if case .timeline(_, let minimumVersion) = body { minimumVersion } else { nil }
    }
}
