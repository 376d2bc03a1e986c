/// A map bounded to `capacity` entries that forgets the least recently used ones when it grows
/// past it — for a service's working set in memory (the states of the users active now) in
/// front of a store that keeps everything.
///
/// Each read or write stamps the entry with a counter; when an insert goes over capacity, the
/// oldest eighth is evicted in one pass, so an insert costs O(log n) amortised and a read one
/// hash lookup.
public struct LeastRecentlyUsed<Key: Hashable, Value> {
    public let capacity: Int
    private var entries: [Key: (value: Value, lastUse: UInt64)] = [:]
    private var clock: UInt64 = 0

    /// - Precondition: `capacity > 0`.
    public init(capacity: Int) {
        precondition(capacity > 0, "a cache holds at least one entry")
        self.capacity = capacity
    }

    public var count: Int { entries.count }

    /// The value for `key`, now the most recently used; nil when absent.
    public mutating func value(for key: Key) -> Value? {
        clock += 1
        let now = clock
        guard let index = entries.index(forKey: key) else { return nil }
        entries.values[index].lastUse = now
        return entries.values[index].value
    }

    /// Stores `value` as the most recently used entry, evicting the least recently used when
    /// over capacity.
    public mutating func set(_ value: Value, for key: Key) {
        clock += 1
        entries[key] = (value, clock)
        if entries.count > capacity { evictLeastRecentlyUsed() }
    }

    public mutating func removeValue(for key: Key) {
        entries.removeValue(forKey: key)
    }

    public mutating func removeAll() {
        entries.removeAll()
    }

    private mutating func evictLeastRecentlyUsed() {
        let evicted = entries.count - (capacity - capacity / 8)
        let uses = entries.values.map(\.lastUse).sorted()
        let newestEvicted = uses[evicted - 1]
        entries = entries.filter { $0.value.lastUse > newestEvicted }
    }
}
