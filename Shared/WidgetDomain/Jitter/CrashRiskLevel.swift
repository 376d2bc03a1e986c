/// A crash-risk band: ≥ 71 high (red), ≥ 31 medium (orange), otherwise low (green).
///
/// The app does not send a level: it is derived from the score by the same bands as the colour,
/// so the two can never disagree (the placeholder's 42 is "medium").
public enum CrashRiskLevel: String, Codable, CaseIterable, Sendable {
    case low, medium, high

    public init(score: Int) {
        switch score {
        case 71...: self = .high
        case 31...: self = .medium
        default: self = .low
        }
    }

    public var color: CrashRiskColor {
        switch self {
        case .low: .green
        case .medium: .orange
        case .high: .red
        }
    }
}
