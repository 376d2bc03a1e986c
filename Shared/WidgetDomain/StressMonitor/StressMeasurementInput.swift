import Foundation

/// The body of `RecordStressMeasurement`, as the client sent it; ``StressMonitorStateMachine``
/// validates it.
public struct StressMeasurementInput: Codable, Equatable, Sendable {
    /// 0–100; fractions are accepted and rounded half away from zero.
    public var stressLevel: Double
    /// Heart-rate variability in milliseconds, 1–300, when the measurement has one.
    public var hrvMilliseconds: Double?
    /// When the measurement was taken; nil means now.
    public var measuredAt: Date?

    public init(stressLevel: Double, hrvMilliseconds: Double? = nil, measuredAt: Date? = nil) {
        self.stressLevel = stressLevel
        self.hrvMilliseconds = hrvMilliseconds
        self.measuredAt = measuredAt
    }
}
