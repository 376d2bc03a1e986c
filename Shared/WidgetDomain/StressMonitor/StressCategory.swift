/// The band a 0–100 stress score falls in, with the label the widget prints.
///
/// The seed names `.mild` and `.moderate` and shows 38 and 42 as mild, 45 and 50 as moderate;
/// the boundaries below keep all four examples true: relaxed 0–24, mild 25–44,
/// moderate 45–69, high 70–100.
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

    /// The seed's `displayName` (the small widget upper-cases it).
    public var displayName: String {
        switch self {
        case .relaxed: "Relaxed"
        case .mild: "Mild"
        case .moderate: "Moderate"
        case .high: "High"
        }
    }
}
