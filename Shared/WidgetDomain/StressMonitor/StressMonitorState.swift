import Foundation

/// Durable state of one user's Stress Monitor widget: the latest measurement and the last 24 HRV
/// values, plus the last explicit refresh request.
public struct StressMonitorState: Codable, Equatable, Sendable {
    /// The measurement with the latest `measuredAt`; nil before the first one.
    public var latest: StressMeasurement?
    /// At most ``StressMonitorLimits/hrvHistoryLimit`` samples, oldest first.
    public var hrvHistory: [HRVSample]
    /// When `UpdateWidgetIntent` last asked for a new timeline; recording it is what makes the
    /// request a state change, and so a reload.
    public var refreshRequestedAt: Date?

    public init(latest: StressMeasurement? = nil, hrvHistory: [HRVSample] = [], refreshRequestedAt: Date? = nil) {
        self.latest = latest
        self.hrvHistory = hrvHistory
        self.refreshRequestedAt = refreshRequestedAt
    }

    public static let initial = StressMonitorState()

    /// The history's values in time order, as the sparkline draws them.
    public var hrvValues: [Double] { hrvHistory.map(\.milliseconds) }
}
