import Foundation
import Testing
@testable import WidgetDomain

@Suite("WidgetState dispatch")
struct WidgetStateTests {
    @Test func appsAndKindsAreTheSeedNames() {
        #expect(WidgetApp.tensionCheck.rawValue == "tensionCheck")
        #expect(Set(WidgetApp.allCases.map(\.rawValue)).count == WidgetApp.allCases.count)
        #expect(WidgetKind.tensionCheck.rawValue == "TensionCheckWidget")
        #expect(WidgetKind.tensionCheck.app == .tensionCheck)
        #expect(WidgetIntent.tensionCheck(.resetWidget).app == .tensionCheck)
    }

    @Test func initialStateOfEachApp() {
        for app in WidgetApp.allCases {
            let state = WidgetState.initial(for: app)
            #expect(state.app == app)
        }
        #expect(WidgetState.initial(for: .tensionCheck) == .tensionCheck(.initial))
    }

    @Test("reduce dispatches to the app's state machine", arguments: [
        TensionCheckIntent.recordTension(level: 0),
        .recordTension(level: 7),
        .recordTension(level: 10),
        .markInterventionDone(checkInId: "abc-123"),
        .resetWidget,
    ])
    func reduceMatchesTheStateMachine(intent: TensionCheckIntent) throws {
        var direct = Fixture.context(seed: 21)
        var dispatched = Fixture.context(seed: 21)
        let expected = try TensionCheckStateMachine.reduce(Fixture.suggestionState, intent, context: &direct)
        let actual = try WidgetState.tensionCheck(Fixture.suggestionState)
            .reduce(.tensionCheck(intent), context: &dispatched)
        #expect(actual.state == .tensionCheck(expected.state))
        #expect(actual.records == expected.records)
        #expect(actual.state.app == .tensionCheck)
    }

    @Test func reducePassesTheContextThrough() throws {
        var context = Fixture.context(seed: 4)
        _ = try WidgetState.initial(for: .tensionCheck).reduce(.tensionCheck(.recordTension(level: 3)), context: &context)
        var untouched = Fixture.context(seed: 4)
        _ = untouched.makeID()
        #expect(context.makeID() == untouched.makeID(), "the check-in id must be drawn from the caller's context")
    }

    @Test func reduceRethrowsRuleViolations() {
        var context = Fixture.context()
        let violation = ruleViolation {
            _ = try WidgetState.tensionCheck(.initial).reduce(.tensionCheck(.markInterventionDone(checkInId: "x")), context: &context)
        }
        #expect(violation?.code == "unknown_check_in")
    }

    @Test("timeline dispatches to the kind's policy", arguments: [
        Fixture.pickerState, Fixture.suggestionState, Fixture.completedState,
    ])
    func timelineMatchesThePolicy(state: TensionCheckState) {
        let timeline = WidgetState.tensionCheck(state).timeline(for: .tensionCheck, now: Fixture.now, timeZone: Fixture.timeZone)
        #expect(timeline == .tensionCheck(TensionCheckTimelinePolicy.timeline(for: state, now: Fixture.now)))
    }

    @Test func transitionMapKeepsRecords() {
        let record = PendingRecord.tensionCheckIn(Fixture.highCheckIn)
        let transition = Transition(state: Fixture.suggestionState, records: [record])
        let mapped = transition.map(WidgetState.tensionCheck)
        #expect(mapped.state == .tensionCheck(Fixture.suggestionState))
        #expect(mapped.records == [record])
        #expect(Transition(state: 1).records.isEmpty)
    }
}
