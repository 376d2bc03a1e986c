import Metrics

/// The counters of one metric by the value of a label known only when it is seen — a message
/// type, an error code, a rejection reason — each made the first time its value is counted, so
/// a backend is asked once per value, never per message. Owned by one thread; a family several
/// threads count into sits behind a lock.
public struct CounterFamily<Key: Hashable> {
    private let make: (Key) -> Counter
    private var counters: [Key: Counter] = [:]

    /// - Parameter make: the counter of one value of the key, e.g.
    ///   `{ Counter(MetricCatalog.errorReplies, ["code": $0.rawValue]) }`.
    public init(_ make: @escaping (Key) -> Counter) {
        self.make = make
    }

    public mutating func increment(_ key: Key, by amount: Int64 = 1) {
        if let counter = counters[key] { return counter.increment(by: amount) }
        let counter = make(key)
        counters[key] = counter
        counter.increment(by: amount)
    }
}
