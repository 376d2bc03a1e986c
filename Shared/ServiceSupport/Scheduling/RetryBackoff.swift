import Foundation

/// When to try again after failures in a row — a user's sync pass, a device's push: exponential
/// backoff with full jitter (a delay drawn uniformly from zero to `min(cap, base × 2^(failures −
/// 1))`), so that many failing together — a database or APNs outage — do not all come back at the
/// same instant. A success resets the count.
public struct RetryBackoff: Sendable {
    public var base: Duration
    public var cap: Duration

    public init(base: Duration, cap: Duration) {
        self.base = base
        self.cap = cap
    }

    /// The delay before the next attempt after `consecutiveFailures` (≥ 1) failures in a row.
    public func delay(afterFailures consecutiveFailures: Int, unit: Double = Double.random(in: 0...1)) -> Duration {
        let exponent = min(max(consecutiveFailures - 1, 0), 62)
        let ceiling = min(cap.asSeconds, base.asSeconds * pow(2, Double(exponent)))
        return .milliseconds(Int64((ceiling * unit * 1000).rounded()))
    }
}
