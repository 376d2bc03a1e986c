/// The Diet app's WidgetKit kinds; each raw value is the exact kind string the widget registers.
///
/// All three render the same ``DietState``; each shows its own slice of it (see
/// ``DietWidgetContent``). The Macro Breakdown view is the progress kind's medium family, not a
/// kind of its own: no widget is declared under that name.
public enum DietWidgetKind: String, CaseIterable, Codable, CodingKeyRepresentable, Sendable {
    /// Daily Progress: calorie ring and macro bars.
    case dietProgress = "DietProgressWidget"
    /// Quick Log: up to four favourite foods as buttons (interactive).
    case quickLog = "QuickLogWidget"
    /// Lock Screen: calories remaining at a glance.
    case lockScreen = "LockScreenWidget"

    /// The WidgetKit families the kind supports.
    public var supportedFamilies: [String] {
        switch self {
        case .dietProgress: ["systemSmall", "systemMedium"]
        case .quickLog: ["systemMedium"]
        case .lockScreen: ["accessoryCircular", "accessoryRectangular", "accessoryInline"]
        }
    }
}
