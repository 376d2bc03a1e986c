import Foundation

/// The bounds Stress Monitor's rules check and the values shown before any measurement.
public enum StressMonitorLimits {
    /// A stress score is 0–100 (the ring is `stressLevel / 100`).
    public static let stressLevelRange: ClosedRange<Double> = 0...100
    /// Plausible RMSSD/SDNN heart-rate variability, in milliseconds.
    public static let hrvRange: ClosedRange<Double> = 1...300
    /// HRV readings kept and charted: the latest 24.
    public static let hrvHistoryLimit = 24
    /// How far ahead of the receiving clock a `measuredAt` may be (device clock skew).
    public static let futureSkew: TimeInterval = 5 * 60
    /// The oldest `measuredAt` accepted: a watch that synced late still counts, a week-old
    /// backlog does not.
    public static let maxMeasurementAge: TimeInterval = 7 * 24 * 60 * 60
    /// The widget asks for a new timeline every 15 minutes.
    public static let widgetRefresh: TimeInterval = 15 * 60

    /// The values before any measurement: stress 50 (moderate), HRV average 60 ms, max 75 ms.
    public static let defaultStressLevel = 50
    public static let defaultHRVAverage: Double = 60
    public static let defaultHRVMax: Double = 75
}
