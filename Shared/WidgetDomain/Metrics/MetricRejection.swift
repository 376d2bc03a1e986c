/// Why metrics-ingest refused one sample. PUSH has no reply, so each reason is a counter
/// (`MetricsStatusReply.rejectedSamples`) under its stable code; the message goes to the log.
public struct MetricRejection: Error, Equatable, Sendable, CustomStringConvertible {
    /// The reasons in the order they are checked; the first that applies is counted.
    public enum Reason: String, Codable, Sendable, CaseIterable {
        /// Not a sample object: a field missing, `null` or of the wrong JSON type, a bad date.
        case malformedSample = "malformed_sample"
        /// `kind` is not `hrv`, `stress` or `rr`.
        case unknownKind = "unknown_kind"
        /// An `hrv` sample's `measure` is not `rmssd` or `sdnn`.
        case unknownMeasure = "unknown_measure"
        /// `user` breaks the protocol's user-id rules.
        case invalidUser = "invalid_user"
        /// `source` is not 1–64 printable characters.
        case invalidSource = "invalid_source"
        /// `takenAt` is more than 5 minutes ahead of the server's clock.
        case measurementInFuture = "measurement_in_future"
        /// `takenAt` is more than 7 days before the server's clock.
        case measurementTooOld = "measurement_too_old"
        /// A stress `score` outside 0–100.
        case invalidStressScore = "invalid_stress_score"
        /// An HRV value (sent, or derived from RR intervals) outside 1–300 ms.
        case invalidHRV = "invalid_hrv"
        /// `intervals` is empty or has more than 10,000 entries.
        case invalidRRIntervals = "invalid_rr_intervals"
        /// Fewer than 10 intervals survive artefact filtering, or no two clean ones are adjacent.
        case tooFewCleanIntervals = "too_few_clean_intervals"
    }

    public let reason: Reason
    public let message: String

    public init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    public var description: String { "\(reason.rawValue): \(message)" }
}
