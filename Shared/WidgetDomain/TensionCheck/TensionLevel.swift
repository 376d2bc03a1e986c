/// The 😌→😫 scale the Tension Check widget offers: five levels, 0, 3, 5, 7 and 10.
public enum TensionLevel: Int, CaseIterable, Codable, Sendable {
    case none = 0
    case mild = 3
    case moderate = 5
    case strong = 7
    case severe = 10

    public var emoji: String {
        switch self {
        case .none: "😌"
        case .mild: "🙂"
        case .moderate: "😐"
        case .strong: "😣"
        case .severe: "😫"
        }
    }

    public var label: String {
        switch self {
        case .none: "None"
        case .mild: "Mild"
        case .moderate: "Mod"
        case .strong: "High"
        case .severe: "Bad"
        }
    }

    /// Levels 7 and above ask for a micro-intervention.
    public var triggersSuggestion: Bool { rawValue >= 7 }
}
