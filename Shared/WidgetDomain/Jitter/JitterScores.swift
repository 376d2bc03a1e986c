import Foundation

/// The Jitter app's latest scores as the widget shows them; the timer fields live in
/// ``DrinkSession``.
public struct JitterScores: Codable, Equatable, Sendable {
    /// 0–100.
    public var crashRiskScore: Int
    /// 0–100.
    public var focusScore: Int
    /// Caffeine currently in the body, mg.
    public var currentCaffeineLevel: Int
    public var lastDrinkTime: Date?
    public var lastDrinkName: String?
    /// When the app last sent scores.
    public var lastUpdated: Date

    public init(
        crashRiskScore: Int, focusScore: Int, currentCaffeineLevel: Int, lastDrinkTime: Date? = nil,
        lastDrinkName: String? = nil, lastUpdated: Date
    ) {
        self.crashRiskScore = crashRiskScore
        self.focusScore = focusScore
        self.currentCaffeineLevel = currentCaffeineLevel
        self.lastDrinkTime = lastDrinkTime
        self.lastDrinkName = lastDrinkName
        self.lastUpdated = lastUpdated
    }

    public var riskLevel: CrashRiskLevel { CrashRiskLevel(score: crashRiskScore) }
}
