/// How often, and after how long, a call whose failure is transient
/// (``WidgetBusClientError/isTransient``) is sent again.
///
/// Every call may be retried: writes carry an `Idempotency-Key` that all their attempts share, so
/// intent-handler applies a write once however often it arrives, and reads change nothing.
public struct RetryPolicy: Sendable {
    /// Attempts in all, the first included.
    public var attempts: Int
    /// The wait after the first failure; it doubles after each further one.
    public var firstDelay: Duration
    /// The longest wait between two attempts. A `Retry-After` longer than this ends the retries:
    /// the caller decides whether to wait that long.
    public var longestDelay: Duration

    public init(attempts: Int = 4, firstDelay: Duration = .milliseconds(200), longestDelay: Duration = .seconds(5)) {
        self.attempts = max(1, attempts)
        self.firstDelay = firstDelay
        self.longestDelay = longestDelay
    }

    /// For a widget's timeline provider, which must answer within seconds: one more attempt, then
    /// the cache.
    public static let widget = RetryPolicy(attempts: 2, firstDelay: .milliseconds(300), longestDelay: .seconds(1))

    /// The wait after `failures` failures in a row, or nil when the caller should not wait:
    /// `Retry-After` when the gateway sent one, else the doubling backoff.
    func delay(afterFailures failures: Int, retryAfter: Duration?) -> Duration? {
        if let retryAfter { return retryAfter <= longestDelay ? retryAfter : nil }
        let doubled = firstDelay * (1 << min(failures - 1, 16))
        return min(doubled, longestDelay)
    }

    /// Runs `operation` until it succeeds, fails for good, or runs out of attempts.
    func run<Value>(_ operation: () async throws -> Value) async throws -> Value {
        var failures = 0
        while true {
            do {
                return try await operation()
            } catch let error as WidgetBusClientError where error.isTransient {
                failures += 1
                guard failures < attempts, let delay = delay(afterFailures: failures, retryAfter: error.retryAfter) else { throw error }
                try await Task.sleep(for: delay)
            }
        }
    }
}

extension WidgetBusClientError {
    var retryAfter: Duration? {
        if case .problem(_, let retryAfter) = self { retryAfter } else { nil }
    }
}
