/// Stress Monitor's one widget, with the seed's kind string.
public enum StressMonitorWidgetKind: String, CaseIterable, Codable, Sendable {
    case stressMonitor = "StressMonitorWidget"

    /// WidgetKit families (`.supportedFamilies([.systemSmall, .systemMedium])`).
    public var supportedFamilies: [String] { ["systemSmall", "systemMedium"] }
}
