import Foundation
import Testing
@testable import WidgetDomain

/// `UpdateJitterScores`: the app's latest scores.
@Suite("Jitter scores update")
struct JitterScoresUpdateTests {
    typealias Machine = JitterStateMachine

    func violation(_ update: JitterScoresUpdate, state: JitterState = .initial) -> RuleViolation? {
        var context = JitterFixture.context()
        return ruleViolation { _ = try Machine.reduce(state, .updateScores(update), context: &context) }
    }

    @Test func updateStoresScoresStampedNow() throws {
        var context = JitterFixture.context()
        let transition = try Machine.reduce(.initial, .updateScores(JitterFixture.update), context: &context)
        #expect(transition.state == JitterState(scores: JitterScores(
            crashRiskScore: 72, focusScore: 55, currentCaffeineLevel: 180,
            lastDrinkTime: Fixture.now.addingTimeInterval(-3600), lastDrinkName: "Flat White", lastUpdated: Fixture.now)))
        #expect(transition.state.scores?.riskLevel == .high)
        #expect(transition.records.isEmpty)
        #expect(transition.openURL == nil)
    }

    @Test func updateReplacesEverythingAndKeepsAnActiveSession() throws {
        var context = JitterFixture.context()
        let update = JitterScoresUpdate(crashRiskScore: 10, focusScore: 90, currentCaffeineLevel: 0)
        let next = try Machine.reduce(JitterFixture.sippingState, .updateScores(update), context: &context).state
        #expect(next.scores == JitterScores(crashRiskScore: 10, focusScore: 90, currentCaffeineLevel: 0, lastUpdated: Fixture.now))
        #expect(next.session == JitterFixture.session)
    }

    @Test func updateDropsAnExpiredSession() throws {
        var context = JitterFixture.context(now: JitterFixture.session.expiresAt)
        let next = try Machine.reduce(JitterFixture.sippingState, .updateScores(JitterFixture.update), context: &context).state
        #expect(next.session == nil)
    }

    @Test func boundsAreAccepted() throws {
        var context = JitterFixture.context()
        for update in [
            JitterScoresUpdate(crashRiskScore: 0, focusScore: 100, currentCaffeineLevel: 2000),
            JitterScoresUpdate(crashRiskScore: 100, focusScore: 0, currentCaffeineLevel: 0, lastDrinkTime: Fixture.now.addingTimeInterval(300)),
        ] {
            #expect(try Machine.reduce(.initial, .updateScores(update), context: &context).state.scores?.crashRiskScore == update.crashRiskScore)
        }
    }

    @Test("a score outside 0–100 is invalid_score", arguments: [(-1, 50), (101, 50), (50, -1), (50, 101), (Int.min, 0), (0, Int.max)])
    func invalidJitterScore(crash: Int, focus: Int) {
        let update = JitterScoresUpdate(crashRiskScore: crash, focusScore: focus, currentCaffeineLevel: 100)
        #expect(violation(update, state: JitterFixture.scoresState)?.code == "invalid_score")
    }

    @Test("a caffeine level outside 0–2000 mg is invalid_caffeine_level", arguments: [-1, 2001, Int.max])
    func invalidCaffeine(level: Int) {
        #expect(violation(JitterScoresUpdate(crashRiskScore: 1, focusScore: 1, currentCaffeineLevel: level))?.code == "invalid_caffeine_level")
    }

    @Test("a drink time in the future or before 2000 is invalid_drink_time", arguments: [
        301.0, 86_400, -Fixture.now.timeIntervalSince1970, -Fixture.now.timeIntervalSince(Date(timeIntervalSince1970: 946_684_799)),
    ])
    func invalidDrinkTime(offset: TimeInterval) {
        let update = JitterScoresUpdate(
            crashRiskScore: 1, focusScore: 1, currentCaffeineLevel: 1, lastDrinkTime: Fixture.now.addingTimeInterval(offset))
        #expect(violation(update)?.code == "invalid_drink_time")
    }

    @Test("a blank, long or control-character drink name is invalid_drink_name", arguments: [
        "", "   ", "Latte\u{7}", String(repeating: "a", count: 81),
    ])
    func invalidDrinkName(name: String) {
        let update = JitterScoresUpdate(crashRiskScore: 1, focusScore: 1, currentCaffeineLevel: 1, lastDrinkName: name)
        #expect(violation(update)?.code == "invalid_drink_name")
    }

    @Test func drinkNameIsTrimmed() throws {
        var context = JitterFixture.context()
        let update = JitterScoresUpdate(crashRiskScore: 1, focusScore: 1, currentCaffeineLevel: 1, lastDrinkName: "  Cold Brew\n")
        #expect(try Machine.reduce(.initial, .updateScores(update), context: &context).state.scores?.lastDrinkName == "Cold Brew")
    }

    @Test func aRefusedUpdateDrawsNoRandomness() {
        var context = JitterFixture.context()
        _ = ruleViolation {
            _ = try Machine.reduce(.initial, .updateScores(JitterScoresUpdate(crashRiskScore: 101, focusScore: 0, currentCaffeineLevel: 0)), context: &context)
        }
        var fresh = JitterFixture.context()
        #expect(context.makeID() == fresh.makeID())
    }
}
