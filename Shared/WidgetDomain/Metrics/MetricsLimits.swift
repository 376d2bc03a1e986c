import Foundation

/// The bounds metrics-ingest checks that Stress Monitor's own limits do not already give
/// (score and HRV ranges, clock skew and age come from ``StressMonitorLimits``).
public enum MetricsLimits {
    /// A `source` (device or gateway name) is 1–64 characters.
    public static let sourceLength: ClosedRange<Int> = 1...64
    /// RR intervals in one sample: about two hours of beats at most.
    public static let rrIntervalCount: ClosedRange<Int> = 1...10_000
    /// Physiological RR range in ms (30–200 bpm); anything outside is a sensor artefact.
    public static let rrPhysiologicalRange: ClosedRange<Double> = 300...2_000
    /// Malik's criterion: an interval more than 20 % away from the previous accepted one is an artefact.
    public static let rrMaximumSuccessiveChange = 0.20
    /// Clean intervals needed before RMSSD and SDNN mean anything (about ten heartbeats).
    public static let rrMinimumCleanIntervals = 10
    /// Hourly HRV values kept per measure: the widget's "Last 24 Hours".
    public static let hourlyValuesKept = StressMonitorLimits.hrvHistoryLimit
}
