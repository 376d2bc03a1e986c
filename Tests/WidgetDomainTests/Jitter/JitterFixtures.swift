import Foundation
@testable import WidgetDomain

/// Fixed inputs of the Jitter tests.
enum JitterFixture {
    static func context(now: Date = Fixture.now, seed: UInt64 = 42) -> ReduceContext {
        ReduceContext(now: now, timeZone: Fixture.timeZone, random: RandomSource(SeededRandom(seed: seed)))
    }

    static let update = JitterScoresUpdate(
        crashRiskScore: 72, focusScore: 55, currentCaffeineLevel: 180,
        lastDrinkTime: Fixture.now.addingTimeInterval(-3600), lastDrinkName: "Flat White")

    static let scores = JitterScores(
        crashRiskScore: 72, focusScore: 55, currentCaffeineLevel: 180,
        lastDrinkTime: Fixture.now.addingTimeInterval(-3600), lastDrinkName: "Flat White",
        lastUpdated: Fixture.now.addingTimeInterval(-600))

    static let session = DrinkSession(id: "5f0c6b1e-0000-4000-8000-000000000001", startTime: Fixture.now.addingTimeInterval(-125))

    static let scoresState = JitterState(scores: scores)
    static let sippingState = JitterState(scores: scores, session: session)
}
