import DequeModule
import Foundation
import WidgetBusProtocol

/// How far behind a publisher's stream its followers are, from the positions their heartbeats
/// report (``HeartbeatBody/follows``) and the moments the publisher published each sequence:
/// what lets a publisher hold its intake back while a follower is behind, so that under overload
/// the backlog waits — bounded, and refused past its wait — in the publisher's admission queue,
/// not in libzmq's queues between the services, which grow with the offered load.
///
/// A follower's lag is how long the oldest event it has not reported applying has been out, 0
/// once it reported the latest. Between its reports a follower is counted as not having moved:
/// the figure is an upper bound, too high by at most a report interval and the heartbeat's way.
/// A follower is too far behind when it is both more than ``longestLag`` and at least
/// ``fewestEventsBehind`` events behind: a few events behind a follower that stalled for a
/// moment at a trickle of load cost nothing, and holding the intake back for them would only
/// refuse what it could take.
/// A follower not heard for ``silence`` is not counted: one that is down re-syncs from a
/// snapshot when it comes back, and the publisher must not stop for it meanwhile. A report of
/// another epoch of the publisher (a follower that has not re-synced since a restart) is not
/// counted either: its re-sync brings it up to date at once. Owned by the bus's thread.
public struct FollowerLag {
    /// The publisher whose stream the followers report on, by the name their reports give it.
    public let publisher: String
    /// The publisher's epoch: positions in another one are not in this stream.
    public let epoch: String
    /// How far behind a follower may fall before the publisher holds its intake back.
    public let longestLag: TimeInterval
    /// How many events behind a follower must be, as well, to be too far behind.
    public let fewestEventsBehind: UInt64
    /// How long a follower may go unheard before it is no longer waited for.
    public let silence: TimeInterval

    /// The first sequence published at each moment, oldest first, back to the last moment more
    /// than ``longestLag`` ago (a follower further behind is too far behind whatever its exact
    /// lag), and at most ``mostMoments``.
    private var published = Deque<(sequence: UInt64, at: Date)>()
    /// The most publishing moments kept: what bounds them should the wall clock step back, which
    /// stops them ageing, or with a long ``longestLag`` and many publishing turns a second. A
    /// follower behind every moment kept is too far behind, however young the oldest is.
    static let mostMoments = 65_536
    private var lastSequence: UInt64
    /// Each follower's latest report in this epoch, by the follower's name.
    private var reports: [String: (sequence: UInt64, heard: Date)] = [:]

    public init(
        publisher: String, epoch: String, lastSequence: UInt64, longestLag: TimeInterval, fewestEventsBehind: UInt64,
        silence: TimeInterval = 2
    ) {
        self.publisher = publisher
        self.epoch = epoch
        self.lastSequence = lastSequence
        self.longestLag = longestLag
        self.fewestEventsBehind = fewestEventsBehind
        self.silence = silence
    }

    /// Notes that every sequence up to `sequence` has been published, by `now`.
    public mutating func published(through sequence: UInt64, at now: Date) {
        guard sequence > lastSequence else { return }
        published.append((lastSequence + 1, now))
        lastSequence = sequence
        while published.count > Self.mostMoments || (published.count > 1 && now.timeIntervalSince(published[1].at) > longestLag) {
            published.removeFirst()
        }
    }

    /// Takes a follower's heartbeat, heard at `now`.
    public mutating func heard(_ beat: HeartbeatBody, at now: Date) {
        let position = beat.follows?.first { $0.publisher == publisher && $0.epoch == epoch }
        reports[beat.publisher] = position.map { ($0.sequence, now) }
    }

    /// How far behind `follower` is at `now`; nil when it is not counted (unheard for
    /// ``silence``, or not following this epoch).
    public func lag(of follower: String, at now: Date) -> TimeInterval? {
        guard let report = counted(follower, at: now) else { return nil }
        return lag(after: report.sequence, at: now)
    }

    /// The counted follower furthest behind, when it is too far behind at `now`: more than
    /// ``longestLag`` and at least ``fewestEventsBehind`` events.
    public func tooFarBehind(at now: Date) -> (follower: String, lag: TimeInterval, events: UInt64)? {
        let behind = reports.keys.compactMap { follower -> (follower: String, lag: TimeInterval, events: UInt64)? in
            guard let report = counted(follower, at: now) else { return nil }
            let events = lastSequence - min(report.sequence, lastSequence)
            guard events >= fewestEventsBehind else { return nil }
            let lag = lag(after: report.sequence, at: now)
            return lag > longestLag || isBehindEveryMoment(report.sequence) ? (follower, lag, events) : nil
        }
        return behind.max { $0.lag < $1.lag }
    }

    /// Whether the event after `sequence` went out before every moment kept.
    private func isBehindEveryMoment(_ sequence: UInt64) -> Bool {
        guard sequence < lastSequence, let first = published.first else { return false }
        return sequence + 1 < first.sequence
    }

    /// `follower`'s latest report, when it is heard within ``silence`` of `now`.
    private func counted(_ follower: String, at now: Date) -> (sequence: UInt64, heard: Date)? {
        guard let report = reports[follower], now.timeIntervalSince(report.heard) <= silence else { return nil }
        return report
    }

    /// How long the event after `sequence` has been out at `now`: 0 when there is none; for one
    /// that went out before every moment kept, the oldest moment's age (less than its own).
    private func lag(after sequence: UInt64, at now: Date) -> TimeInterval {
        guard sequence < lastSequence, let first = published.first else { return 0 }
        // The moment that published `sequence + 1`: the last whose first sequence is not after it.
        var (low, high) = (0, published.count - 1)
        while low < high {
            let middle = (low + high + 1) / 2
            if published[middle].sequence <= sequence + 1 { low = middle } else { high = middle - 1 }
        }
        let at = published[low].sequence <= sequence + 1 ? published[low].at : first.at
        return max(0, now.timeIntervalSince(at))
    }
}
