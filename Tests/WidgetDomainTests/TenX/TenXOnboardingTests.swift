import Foundation
import Testing
@testable import WidgetDomain

@Suite("TenX onboarding")
struct TenXOnboardingTests {
    @Test func initialStateNeedsOnboarding() {
        #expect(TenXState.initial == TenXState(goals: [], dayEntries: [], hasCompletedOnboarding: false, streakTail: nil))
        #expect(TenXState.initial.needsOnboarding)
    }

    @Test func completeOnboardingSetsTheFlagAndIsIdempotent() throws {
        let once = try TenXFixture.reduce(.initial, .completeOnboarding)
        #expect(once.hasCompletedOnboarding)
        #expect(try TenXFixture.reduce(once, .completeOnboarding) == once)
    }

    @Test("gating is !hasCompletedOnboarding || activeGoals.isEmpty", arguments: [
        (false, false, true), (false, true, true), (true, false, true), (true, true, false),
    ])
    func gating(flag: Bool, hasGoal: Bool, needsOnboarding: Bool) throws {
        var state = TenXState.initial
        if hasGoal { state = try TenXFixture.reduce(state, .createGoal(title: "Health")) }
        if flag { state = try TenXFixture.reduce(state, .completeOnboarding) }
        #expect(state.needsOnboarding == needsOnboarding)
    }
}
