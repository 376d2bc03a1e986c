import Testing
@testable import WidgetDomain

/// `SetTrackingMode {mode}`: full tracking or mindful (recovery) mode.
@Suite("Diet tracking mode")
struct DietTrackingModeTests {
    typealias Machine = DietStateMachine

    @Test func modesAreTheSeedsStrings() {
        #expect(DietTrackingMode.allCases.map(\.rawValue) == ["full", "mindful"])
        #expect(DietTrackingMode.mindful.isRecoveryMode)
        #expect(DietTrackingMode.full.isRecoveryMode == false)
    }

    @Test func setModeSwitchesBothWaysAndTouchesNothingElse() throws {
        var context = DietFixture.context()
        let mindful = try Machine.reduce(DietFixture.synced, .setTrackingMode(mode: "mindful"), context: &context)
        #expect(mindful.state == DietFixture.mindful)
        #expect(mindful.records.isEmpty)
        let full = try Machine.reduce(mindful.state, .setTrackingMode(mode: "full"), context: &context)
        #expect(full.state == DietFixture.synced)
    }

    @Test("an unknown mode is invalid_tracking_mode", arguments: ["", "Mindful", "recovery", "full ", "mindful\u{0}"])
    func unknownMode(mode: String) {
        var context = DietFixture.context()
        let violation = ruleViolation { _ = try Machine.reduce(DietFixture.synced, .setTrackingMode(mode: mode), context: &context) }
        #expect(violation?.code == "invalid_tracking_mode")
    }
}
