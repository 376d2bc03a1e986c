import DequeModule

/// Writes waiting for their moment: each key is due `delay` after its first change, and further
/// changes before then ride along, so a burst of changes to one file becomes one write of the
/// latest state, at most `delay` (plus `granularity`) late however long the burst lasts.
///
/// Due instants fall on a grid of `granularity` (counted from the first key's), rounded up: keys
/// first changed within the same step fall due together, so they are written as one batch, and
/// a batch's fixed cost (a durable write's barriers) is shared by its keys.
public struct CoalescingSchedule<Key: Hashable> {
    public typealias Instant = ContinuousClock.Instant

    public let delay: Duration
    public let granularity: Duration
    /// Waiting keys in the order they are due: every key waits the same delay, rounded up the
    /// same way, so first in is first due.
    private var queue: Deque<(key: Key, due: Instant)> = []
    private var waiting: Set<Key> = []
    /// Where the grid of due instants starts.
    private var origin: Instant?

    public init(delay: Duration, granularity: Duration = .zero) {
        self.delay = delay
        self.granularity = granularity
    }

    /// Schedules `key` unless it is already waiting.
    public mutating func add(_ key: Key, now: Instant) {
        if waiting.insert(key).inserted {
            queue.append((key, due(changedAt: now)))
        }
    }

    /// `delay` after `now`, rounded up to the grid.
    private mutating func due(changedAt now: Instant) -> Instant {
        let earliest = now + delay
        guard granularity > .zero else { return earliest }
        let origin = self.origin ?? earliest
        self.origin = origin
        let steps = ((earliest - origin) / granularity).rounded(.up)
        return max(earliest, origin + granularity * steps)
    }

    /// Removes and returns the keys due at `now`, at most `limit` of them.
    public mutating func takeDue(now: Instant, limit: Int) -> [Key] {
        take(queue.prefix(limit).prefix { $0.due <= now }.count)
    }

    /// Removes and returns every waiting key, due or not.
    public mutating func takeAll() -> [Key] {
        take(queue.count)
    }

    /// How long until the next key is due (zero when one is); nil when nothing waits.
    public func timeUntilNextDue(now: Instant) -> Duration? {
        queue.first.map { max(.zero, $0.due - now) }
    }

    private mutating func take(_ count: Int) -> [Key] {
        let keys = queue.prefix(count).map(\.key)
        queue.removeFirst(count)
        waiting.subtract(keys)
        return keys
    }
}
