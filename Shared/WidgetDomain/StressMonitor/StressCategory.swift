/// The band a 0–100 stress score falls in, with the label the widget prints.
///
/// The bands are relaxed 0–24, mild 25–44, moderate 45–69 and high 70–100: the placeholder (45)
/// and the default shown without data (50) read as moderate.
public enum StressCategory: String, Codable, Sendable, CaseIterable {
    case relaxed
    case mild
    case moderate
    case high

    /// The category of an integer score; scores outside 0–100 are clamped into it.
    public init(stressLevel: Int) {
        switch stressLevel {
        case ..<25: self = .relaxed
        case 25..<45: self = .mild
        case 45..<70: self = .moderate
        default: self = .high
        }
    }

    /// The scores in this band.
    public var range: ClosedRange<Int> {
        switch self {
        case .relaxed: 0...24
        case .mild: 25...44
        case .moderate: 45...69
        case .high: 70...100
        }
    }

    /// The label the widget prints (the small widget upper-cases it).
    public var displayName: String {
        switch self {
        case .relaxed: "Relaxed"
        case .mild: "Mild"
        case .moderate: "Moderate"
        case .high: "High"
        }
    }
}
