/// The Jitter app's one WidgetKit kind; the raw value is the exact kind string the widget
/// registers.
public enum JitterWidgetKind: String, CaseIterable, Codable, Sendable {
    /// Jitter Dashboard: focus and crash-risk scores, the "Add Drink" button and the sipping timer.
    case jitter = "JitterWidget"

    /// The WidgetKit families the kind supports.
    public var supportedFamilies: [String] {
        switch self {
        case .jitter: ["systemSmall", "systemMedium"]
        }
    }
}
