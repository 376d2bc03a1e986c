import Foundation

/// One Stress Monitor timeline entry's content: the score, its category and the HRV figures
/// (not `date`, which the entry carries), plus the trend, the measurement time and the deep link.
public struct StressMonitorEntry: Codable, Equatable, Sendable {
    /// 0–100; 50 before any measurement.
    public var stressLevel: Int
    public var category: StressCategory
    /// `category.displayName`, so thin clients need no table.
    public var categoryName: String
    /// The last 24 HRV values in ms, oldest first (the sparkline).
    public var hrvHistory: [Double]
    public var hrvAverage: Double
    public var hrvMax: Double
    /// Newest HRV against `hrvAverage` in whole percent; absent without history.
    public var hrvTrendPercent: Int?
    public var hrvTrendDirection: HRVTrendDirection?
    /// When the shown score was measured ("Updated 2m ago"); absent while the values are defaults.
    public var measuredAt: Date?
    public var deepLink: String

    public init(
        stressLevel: Int, hrvHistory: [Double], hrvAverage: Double, hrvMax: Double, trend: HRVTrend?,
        measuredAt: Date?
    ) {
        let category = StressCategory(stressLevel: stressLevel)
        self.stressLevel = stressLevel
        self.category = category
        categoryName = category.displayName
        self.hrvHistory = hrvHistory
        self.hrvAverage = hrvAverage
        self.hrvMax = hrvMax
        hrvTrendPercent = trend?.percent
        hrvTrendDirection = trend?.direction
        self.measuredAt = measuredAt
        deepLink = StressMonitorDeepLink.measurement
    }

    /// What `state` shows: its latest score and HRV summary, or the no-data defaults.
    public init(state: StressMonitorState) {
        let values = state.hrvValues
        let summary = HRVSummary(values: values)
        self.init(
            stressLevel: state.latest?.stressLevel ?? StressMonitorLimits.defaultStressLevel,
            hrvHistory: values,
            hrvAverage: summary.average,
            hrvMax: summary.maximum,
            trend: summary.trend,
            measuredAt: state.latest?.measuredAt
        )
    }
}
