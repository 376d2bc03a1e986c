import Foundation
import ServiceSupport

/// When to try a user again after a failed pass: exponential backoff with full jitter (a delay
/// drawn uniformly from zero to `min(cap, base × 2^(failures − 1))`), so that many users failing
/// together — a database outage — do not all come back at the same instant. A successful pass
/// resets the count.
struct SyncBackoff: Sendable {
    var base: Duration
    var cap: Duration

    /// The delay before the next attempt after `consecutiveFailures` (≥ 1) failed passes in a row.
    func delay(afterFailures consecutiveFailures: Int, unit: Double = Double.random(in: 0...1)) -> Duration {
        let exponent = min(max(consecutiveFailures - 1, 0), 62)
        let ceiling = min(cap.asSeconds, base.asSeconds * pow(2, Double(exponent)))
        return .milliseconds(Int64((ceiling * unit * 1000).rounded()))
    }
}
