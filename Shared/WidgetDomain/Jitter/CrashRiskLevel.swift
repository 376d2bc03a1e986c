/// A crash-risk band: ≥ 71 high (red), ≥ 31 medium (orange), otherwise low (green).
///
/// The seed stores a `riskLevel` string beside the score without saying where it comes from; it
/// is derived here from the same bands as the colour, so the two can never disagree (the seed's
/// placeholder, 42 → "medium", agrees).
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
