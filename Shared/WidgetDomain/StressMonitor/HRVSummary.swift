/// The HRV figures the medium widget prints: average = sum / count, max = largest value, each
/// falling back to its default (60 ms, 75 ms) when there is no history.
public struct HRVSummary: Equatable, Sendable {
    public let average: Double
    public let maximum: Double
    /// Newest reading against the average; nil without history.
    public let trend: HRVTrend?

    /// Summarizes `values` in time order (oldest first).
    public init(values: [Double]) {
        average = HRVSummary.average(of: values) ?? StressMonitorLimits.defaultHRVAverage
        maximum = HRVSummary.maximum(of: values) ?? StressMonitorLimits.defaultHRVMax
        trend = values.last.flatMap { latest in
            HRVSummary.average(of: values).map { HRVTrend(latest: latest, average: $0) }
        }
    }

    /// Arithmetic mean, or nil for no values.
    public static func average(of values: [Double]) -> Double? {
        values.isEmpty ? nil : values.reduce(0, +) / Double(values.count)
    }

    /// Largest value, or nil for no values.
    public static func maximum(of values: [Double]) -> Double? {
        values.max()
    }
}
