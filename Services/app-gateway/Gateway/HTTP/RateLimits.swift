import Foundation
import ServiceSupport
import Synchronization

/// A token bucket: `capacity` requests at once, refilled at `rate` a second. Pure: it is given
/// the time, in seconds on any monotonic clock.
struct TokenBucket: Equatable, Sendable {
    let capacity: Double
    let rate: Double
    private var tokens: Double
    private var updated: Double

    init(capacity: Int, rate: Double, now: Double) {
        self.capacity = Double(capacity)
        self.rate = rate
        tokens = Double(capacity)
        updated = now
    }

    /// Takes one token at `now`: nil when there was one, else the seconds until there is.
    mutating func take(at now: Double) -> Double? {
        tokens = min(capacity, tokens + max(0, now - updated) * rate)
        updated = max(updated, now)
        guard tokens < 1 else {
            tokens -= 1
            return nil
        }
        return (1 - tokens) / rate
    }
}

/// A token bucket per key (a user, an address), the least recently used forgotten past
/// `maxKeys`: a forgotten key starts again with a full bucket, so memory stays bounded however
/// many keys arrive, at the price of letting a key that was quiet long enough to be forgotten
/// start full.
final class RateLimiter: Sendable {
    struct Limit: Sendable, Equatable {
        /// Requests allowed at once.
        var burst: Int
        /// Requests a second, sustained.
        var rate: Double
    }

    let limit: Limit
    private let buckets: Mutex<LeastRecentlyUsed<String, TokenBucket>>

    init(_ limit: Limit, maxKeys: Int = 100_000) {
        self.limit = limit
        buckets = Mutex(LeastRecentlyUsed(capacity: maxKeys))
    }

    /// Takes one request of `key` at `now` (seconds): nil when allowed, else the whole seconds
    /// to wait (at least 1), for `Retry-After`.
    func take(_ key: String, at now: Double) -> Int? {
        buckets.withLock { buckets in
            var bucket = buckets.value(for: key) ?? TokenBucket(capacity: limit.burst, rate: limit.rate, now: now)
            let wait = bucket.take(at: now)
            buckets.set(bucket, for: key)
            return wait.map { max(1, Int($0.rounded(.up))) }
        }
    }
}
