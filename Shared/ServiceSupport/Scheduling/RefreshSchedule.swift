import Foundation
import HeapModule

/// Keys due again at a wall-clock date of their own — when a snapshot file's timeline runs out,
/// when a failed write is retried — however far apart those dates are. Scheduling a key again
/// replaces its date.
public struct RefreshSchedule<Key: Hashable> {
    private struct Due: Comparable {
        var date: Date
        var key: Key

        static func < (lhs: Due, rhs: Due) -> Bool { lhs.date < rhs.date }
        static func == (lhs: Due, rhs: Due) -> Bool { lhs.date == rhs.date }
    }

    /// Each key's one current date; heap entries that disagree were replaced and are skipped.
    private var dates: [Key: Date] = [:]
    private var heap = Heap<Due>()

    public init() {}

    /// Keys scheduled.
    public var count: Int { dates.count }

    /// Makes `key` due at `date`, replacing any date it had.
    public mutating func schedule(_ key: Key, at date: Date) {
        dates[key] = date
        heap.insert(Due(date: date, key: key))
        if heap.count > 2 * dates.count + 1_024 {  // replaced entries pile up under bursts
            heap = Heap(dates.map { Due(date: $1, key: $0) })
        }
    }

    /// Removes and returns the keys due at `now`, earliest first, at most `limit` of them (the
    /// others stay due).
    public mutating func takeDue(now: Date, limit: Int = .max) -> [Key] {
        var due: [Key] = []
        while due.count < limit, let first = heap.min, first.date <= now {
            heap.removeMin()
            if dates[first.key] == first.date {
                dates[first.key] = nil
                due.append(first.key)
            }
        }
        return due
    }

    /// The earliest date; nil when nothing is scheduled. May be earlier than the next due key
    /// when that key's date was replaced: a caller wakes once for nothing, never late.
    public var nextDue: Date? {
        heap.min?.date
    }
}
