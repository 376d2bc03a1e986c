/// The Diet app's WidgetKit kinds, spelled exactly as the seed's `DietWidgetBundle` names them.
///
/// All three render the same ``DietState``; each shows its own slice of it (see
/// ``DietWidgetContent``). The seed's "Macro Breakdown" row is the progress kind's medium
/// family, not a kind of its own: the bundle declares no such widget.
public enum DietWidgetKind: String, CaseIterable, Codable, CodingKeyRepresentable, Sendable {
    /// Daily Progress: calorie ring and macro bars.
    case dietProgress = "DietProgressWidget"
    /// Quick Log: up to four favourite foods as buttons (interactive).
    case quickLog = "QuickLogWidget"
    /// Lock Screen: calories remaining at a glance.
    case lockScreen = "LockScreenWidget"

    /// The WidgetKit families the seed declares for the kind.
    public var supportedFamilies: [String] {
        switch self {
        case .dietProgress: ["systemSmall", "systemMedium"]
        case .quickLog: ["systemMedium"]
        case .lockScreen: ["accessoryCircular", "accessoryRectangular", "accessoryInline"]
        }
    }
}
