/// Which heart-rate-variability statistic a reading is. The two are not interchangeable (SDNN
/// also carries slow variation and reads higher), so they are never averaged together.
public enum HRVMeasure: String, Codable, Sendable, CaseIterable {
    /// Root mean square of successive RR differences: short-term, vagal; what the widget prefers.
    case rmssd
    /// Standard deviation of normal-to-normal intervals (what HealthKit reports).
    case sdnn
}
