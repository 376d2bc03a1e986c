import Foundation
import ServiceSupport

/// How long a push that was not delivered (429, 5xx, no connection) waits before it is sent
/// again, counted per token over its failures in a row. APNs, or a relay in front of it, may say
/// how long with `Retry-After`; one answering `Retry-After: 0` again and again once made the
/// gateway send one token a request every few milliseconds, each with a warning and a commit. So:
///
/// - Every retry waits at least ``floor`` plus a random part of it (1 to 2 s), whatever APNs
///   says: tokens refused together do not come back together, and no answer makes a loop.
/// - The first ``retriesFollowingRetryAfter`` failures in a row wait what `Retry-After` says.
/// - From the next on, and whenever APNs says nothing, the retry also waits the exponential
///   backoff with full jitter (``backoff``: 1 s doubling to 5 min) — the longer of the two: APNs
///   is never asked sooner than it said, and one that keeps saying "now" is asked less and less.
public struct PushRetryPolicy: Sendable {
    /// The shortest wait before any retry, before its random part is added.
    public static let floor: TimeInterval = 1
    /// Failures in a row of one token whose retry waits just what `Retry-After` says.
    public static let retriesFollowingRetryAfter = 3

    public var backoff: RetryBackoff

    public init(backoff: RetryBackoff = RetryBackoff(base: .seconds(1), cap: .seconds(300))) {
        self.backoff = backoff
    }

    /// The wait after a token's `failures`th (≥ 1) failure in a row, given the `Retry-After` of
    /// the answer (nil: none). `floorUnit` and `backoffUnit` (each in 0…1) are the random parts
    /// of the floor and of the backoff.
    public func delay(
        afterFailures failures: Int, retryAfter: TimeInterval?, floorUnit: Double = .random(in: 0...1),
        backoffUnit: Double = .random(in: 0...1)
    ) -> TimeInterval {
        let wanted =
            if let retryAfter, failures <= Self.retriesFollowingRetryAfter {
                retryAfter
            } else {
                max(retryAfter ?? 0, backoff.delay(afterFailures: failures, unit: backoffUnit).asSeconds)
            }
        return max(wanted, Self.floor * (1 + floorUnit))
    }
}
