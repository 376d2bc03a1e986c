import Foundation

/// Stress Monitor's refusals, one stable code each (documented in docs/WIDGETS.md).
extension RuleViolation {
    static func invalidStressLevel(_ value: Double) -> RuleViolation {
        RuleViolation(code: "invalid_stress_level", message: "stress level \(value) is not within 0–100")
    }

    static func invalidHRV(_ value: Double) -> RuleViolation {
        RuleViolation(code: "invalid_hrv", message: "HRV \(value) ms is not within 1–300 ms")
    }

    static func stressMeasurementInFuture(_ measuredAt: Date, now: Date) -> RuleViolation {
        RuleViolation(
            code: "measurement_in_future",
            message: "measuredAt is \(Int(measuredAt.timeIntervalSince(now))) s ahead of the server clock; "
                + "at most \(Int(StressMonitorLimits.futureSkew)) s is allowed")
    }

    static func stressMeasurementTooOld(_ measuredAt: Date, now: Date) -> RuleViolation {
        RuleViolation(
            code: "measurement_too_old",
            message: "measuredAt is \(Int(now.timeIntervalSince(measuredAt))) s old; "
                + "at most \(Int(StressMonitorLimits.maxMeasurementAge)) s (7 days) is accepted")
    }
}
