import Foundation

/// The body of the `UpdateJitterScores` app message, as the client sent it.
///
/// `lastDrinkTime` is an ISO-8601 date string on the wire, read by the wire decoder.
public struct JitterScoresUpdate: Codable, Equatable, Sendable {
    public var crashRiskScore: Int
    public var focusScore: Int
    public var currentCaffeineLevel: Int
    public var lastDrinkTime: Date?
    public var lastDrinkName: String?

    public init(
        crashRiskScore: Int, focusScore: Int, currentCaffeineLevel: Int, lastDrinkTime: Date? = nil,
        lastDrinkName: String? = nil
    ) {
        self.crashRiskScore = crashRiskScore
        self.focusScore = focusScore
        self.currentCaffeineLevel = currentCaffeineLevel
        self.lastDrinkTime = lastDrinkTime
        self.lastDrinkName = lastDrinkName
    }
}
