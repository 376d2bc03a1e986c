/// The kinds of measurement metrics-ingest accepts. With the user and `takenAt` it is the
/// identity of a sample: a second sample of the same kind at the same instant is a duplicate.
public enum MetricKind: String, Codable, Sendable, CaseIterable {
    /// An HRV value a device computed (`milliseconds`, `measure`).
    case hrv
    /// A 0–100 stress score.
    case stress
    /// Raw RR intervals; metrics-ingest derives RMSSD and SDNN (``RRIntervalAnalysis``).
    case rr
}
