/// The Jitter app's one WidgetKit kind, spelled as the seed's `JitterWidget` declares it.
public enum JitterWidgetKind: String, CaseIterable, Codable, Sendable {
    /// Jitter Dashboard: focus and crash-risk scores, the "Add Drink" button and the sipping timer.
    case jitter = "JitterWidget"

    /// The WidgetKit families the seed declares for the kind.
    public var supportedFamilies: [String] {
        switch self {
        case .jitter: ["systemSmall", "systemMedium"]
        }
    }
}
