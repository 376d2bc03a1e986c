/// Every write to a user's Stress Monitor state.
public enum StressMonitorIntent: Equatable, Sendable {
    /// `RecordStressMeasurement {stressLevel, hrvMilliseconds?, measuredAt?}`: an app (or,
    /// later, metrics-ingest) measurement.
    case recordStressMeasurement(StressMeasurementInput)
    /// `UpdateWidgetIntent {}`: update the widget with the latest data — a new timeline now.
    case updateWidget
}
