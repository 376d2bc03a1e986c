import Foundation

/// The latest accepted stress score and when it was measured.
public struct StressMeasurement: Codable, Equatable, Sendable {
    /// 0–100, rounded to a whole score on receipt so the number shown and its category agree.
    public let stressLevel: Int
    public let measuredAt: Date

    public init(stressLevel: Int, measuredAt: Date) {
        self.stressLevel = stressLevel
        self.measuredAt = measuredAt
    }

    public var category: StressCategory { StressCategory(stressLevel: stressLevel) }
}
