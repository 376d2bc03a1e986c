/// Stress Monitor's one widget; the raw value is the exact kind string the widget registers.
public enum StressMonitorWidgetKind: String, CaseIterable, Codable, Sendable {
    case stressMonitor = "StressMonitorWidget"

    /// WidgetKit families (`.supportedFamilies([.systemSmall, .systemMedium])`).
    public var supportedFamilies: [String] { ["systemSmall", "systemMedium"] }
}
