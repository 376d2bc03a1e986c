import Foundation
import Testing
@testable import WidgetDomain

@Suite("TensionCheckStateMachine")
struct TensionCheckStateMachineTests {
    typealias Machine = TensionCheckStateMachine

    // MARK: RecordTension, low levels

    @Test("a low tap stays on the picker and records one check-in without suggestion", arguments: [0, 3, 5])
    func lowTap(level: Int) throws {
        var context = Fixture.context()
        let start = TensionCheckState(phase: .picker, lastSuggestionId: "jaw_relaxation")
        let transition = try Machine.reduce(start, .recordTension(level: level), context: &context)

        #expect(transition.state == start)
        #expect(transition.records.count == 1)
        guard case .tensionCheckIn(let checkIn) = try #require(transition.records.first) else {
            Issue.record("expected a check-in record, got \(transition.records)")
            return
        }
        #expect(checkIn.tensionLevel == level)
        #expect(checkIn.suggestedInterventionId == nil)
        #expect(checkIn.interventionCompleted == false)
        #expect(checkIn.createdAt == Fixture.now)
        #expect(UUID(uuidString: checkIn.id) != nil)
    }

    @Test("a low tap while a suggestion is open returns to the picker", arguments: [0, 3, 5])
    func lowTapDuringSuggestion(level: Int) throws {
        var context = Fixture.context()
        let transition = try Machine.reduce(Fixture.suggestionState, .recordTension(level: level), context: &context)
        #expect(transition.state.phase == .picker)
        #expect(transition.state.lastSuggestionId == "diaphragm_breathing")
        #expect(transition.records.count == 1)
    }

    // MARK: RecordTension, high levels

    @Test("a high tap opens a suggestion holding its check-in", arguments: [7, 10])
    func highTap(level: Int) throws {
        var context = Fixture.context()
        let transition = try Machine.reduce(.initial, .recordTension(level: level), context: &context)

        let (intervention, checkIn) = try #require(transition.state.phase.openSuggestion)
        #expect(InterventionSuggestion.pool.contains(intervention))
        #expect(checkIn.tensionLevel == level)
        #expect(checkIn.suggestedInterventionId == intervention.interventionId)
        #expect(checkIn.interventionCompleted == false)
        #expect(checkIn.createdAt == Fixture.now)
        #expect(UUID(uuidString: checkIn.id) != nil)
        #expect(transition.state.lastSuggestionId == intervention.interventionId)
        #expect(transition.records == [.tensionCheckIn(checkIn)])
    }

    @Test func highTapNeverRepeatsTheStoredLastSuggestion() throws {
        for lastId in InterventionSuggestion.pool.map(\.interventionId) {
            for seed in UInt64(0)..<20 {
                var context = Fixture.context(seed: seed)
                let start = TensionCheckState(phase: .picker, lastSuggestionId: lastId)
                let transition = try Machine.reduce(start, .recordTension(level: 10), context: &context)
                #expect(transition.state.lastSuggestionId != lastId)
            }
        }
    }

    @Test func sameSeedSameClockGivesTheSameTransition() throws {
        var first = Fixture.context(seed: 5)
        var second = Fixture.context(seed: 5)
        let a = try Machine.reduce(.initial, .recordTension(level: 7), context: &first)
        let b = try Machine.reduce(.initial, .recordTension(level: 7), context: &second)
        #expect(a == b)
    }

    @Test func everyCheckInGetsAFreshId() throws {
        var context = Fixture.context()
        var state = TensionCheckState.initial
        var ids: Set<String> = []
        for level in [0, 7, 3, 10, 5, 7, 0, 10] {
            let transition = try Machine.reduce(state, .recordTension(level: level), context: &context)
            ids.formUnion(transition.records.map(\.id))
            state = transition.state
        }
        #expect(ids.count == 8)
    }

    // MARK: RecordTension, invalid levels

    @Test("an off-scale level is refused with invalid_level", arguments: [-1, 1, 4, 6, 11, Int.max, Int.min])
    func invalidLevel(level: Int) {
        for start in [Fixture.pickerState, Fixture.suggestionState, Fixture.completedState] {
            var context = Fixture.context()
            let violation = ruleViolation {
                _ = try Machine.reduce(start, .recordTension(level: level), context: &context)
            }
            #expect(violation?.code == "invalid_level")
            #expect(violation?.message.contains("\(level)") == true)
            // Refused before any effect: the clock is untouched and no randomness was drawn.
            var fresh = Fixture.context()
            #expect(context.now == Fixture.now)
            #expect(context.makeID() == fresh.makeID())
        }
    }

    @Test func invalidLevelLeavesWidgetStateUnchanged() {
        var context = Fixture.context()
        let state = WidgetState.tensionCheck(Fixture.suggestionState)
        var current = state
        do {
            current = try state.reduce(.tensionCheck(.recordTension(level: 4)), context: &context).state
            Issue.record("level 4 was accepted")
        } catch {
            #expect(error.code == "invalid_level")
        }
        #expect(current == state)
    }

    // MARK: MarkInterventionDone

    /// A suggestion opened by a real high tap at `Fixture.now`.
    static func openSuggestion() throws -> (state: TensionCheckState, intervention: InterventionSuggestion, checkIn: StressCheckIn) {
        var context = Fixture.context(seed: 8)
        let state = try Machine.reduce(.initial, .recordTension(level: 10), context: &context).state
        let (intervention, checkIn) = try #require(state.phase.openSuggestion)
        return (state, intervention, checkIn)
    }

    @Test func doneCompletesTheOpenSuggestion() throws {
        let (state, intervention, checkIn) = try Self.openSuggestion()
        let doneAt = Fixture.now.addingTimeInterval(42)
        var context = Fixture.context(now: doneAt)
        let transition = try Machine.reduce(state, .markInterventionDone(checkInId: checkIn.id), context: &context)

        #expect(transition.state.phase == .completed(
            interventionName: intervention.name, checkInId: checkIn.id, resetAt: doneAt.addingTimeInterval(5)))
        #expect(transition.state.lastSuggestionId == state.lastSuggestionId)
        let expected = StressCheckIn(
            id: checkIn.id, tensionLevel: 10, suggestedInterventionId: intervention.interventionId,
            interventionCompleted: true, createdAt: Fixture.now)
        #expect(transition.records == [.tensionCheckIn(expected)])
        #expect(Machine.completedDisplayDuration == 5)
    }

    @Test func secondDoneForTheSameCheckInChangesNothing() throws {
        let (state, _, checkIn) = try Self.openSuggestion()
        var context = Fixture.context(now: Fixture.now.addingTimeInterval(1))
        let completed = try Machine.reduce(state, .markInterventionDone(checkInId: checkIn.id), context: &context).state

        for later in [2.0, 4.0, 60.0] {
            var retry = Fixture.context(now: Fixture.now.addingTimeInterval(later))
            let again = try Machine.reduce(completed, .markInterventionDone(checkInId: checkIn.id), context: &retry)
            #expect(again.state == completed)
            #expect(again.records.isEmpty)
        }
    }

    @Test("done for a check-in without an open suggestion is unknown_check_in", arguments: [
        "wrong", "", "ABC-123",
    ])
    func doneWithUnknownId(id: String) {
        var context = Fixture.context()
        let violation = ruleViolation {
            _ = try Machine.reduce(Fixture.suggestionState, .markInterventionDone(checkInId: id), context: &context)
        }
        #expect(violation?.code == "unknown_check_in")
    }

    @Test func doneOnThePickerIsUnknownCheckIn() {
        var context = Fixture.context()
        let violation = ruleViolation {
            _ = try Machine.reduce(.initial, .markInterventionDone(checkInId: "abc-123"), context: &context)
        }
        #expect(violation?.code == "unknown_check_in")
    }

    @Test func doneForASkippedSuggestionIsUnknownCheckIn() throws {
        let (state, _, checkIn) = try Self.openSuggestion()
        var context = Fixture.context()
        let skipped = try Machine.reduce(state, .resetWidget, context: &context).state
        let violation = ruleViolation {
            _ = try Machine.reduce(skipped, .markInterventionDone(checkInId: checkIn.id), context: &context)
        }
        #expect(violation?.code == "unknown_check_in")
        #expect(violation?.message.contains(checkIn.id) == true)
    }

    @Test func doneForAnOlderCheckInWhileAnotherIsCompletedIsUnknownCheckIn() {
        var context = Fixture.context()
        let violation = ruleViolation {
            _ = try Machine.reduce(Fixture.completedState, .markInterventionDone(checkInId: "other"), context: &context)
        }
        #expect(violation?.code == "unknown_check_in")
    }

    @Test func doneForASupersededSuggestionIsUnknownCheckIn() throws {
        let (state, _, first) = try Self.openSuggestion()
        var context = Fixture.context(seed: 9)
        let second = try Machine.reduce(state, .recordTension(level: 7), context: &context).state
        let violation = ruleViolation {
            _ = try Machine.reduce(second, .markInterventionDone(checkInId: first.id), context: &context)
        }
        #expect(violation?.code == "unknown_check_in")
    }

    // MARK: ResetWidget

    @Test func skipReturnsToThePickerWithoutCompleting() throws {
        let (state, intervention, _) = try Self.openSuggestion()
        var context = Fixture.context()
        let transition = try Machine.reduce(state, .resetWidget, context: &context)
        #expect(transition.state.phase == .picker)
        #expect(transition.records.isEmpty)
        #expect(transition.state.lastSuggestionId == intervention.interventionId)
    }

    @Test("reset from any phase shows the picker", arguments: [
        Fixture.pickerState, Fixture.suggestionState, Fixture.completedState,
    ])
    func resetFromAnyPhase(start: TensionCheckState) throws {
        var context = Fixture.context()
        let transition = try Machine.reduce(start, .resetWidget, context: &context)
        #expect(transition.state == TensionCheckState(phase: .picker, lastSuggestionId: start.lastSuggestionId))
        #expect(transition.records.isEmpty)
    }

    @Test("no Tension Check button leaves the home screen", arguments: [
        TensionCheckIntent.recordTension(level: 3), .recordTension(level: 10),
        .markInterventionDone(checkInId: "abc-123"), .resetWidget,
    ])
    func nothingOpensTheApp(intent: TensionCheckIntent) throws {
        var context = Fixture.context()
        let transition = try Machine.reduce(Fixture.suggestionState, intent, context: &context)
        #expect(transition.openURL == nil)
    }

    // MARK: Whole cycle

    @Test func fullCycleFollowsTheSeedDiagram() throws {
        var context = Fixture.context()
        var state = TensionCheckState.initial

        state = try Machine.reduce(state, .recordTension(level: 3), context: &context).state
        #expect(state.phase == .picker)

        state = try Machine.reduce(state, .recordTension(level: 7), context: &context).state
        let (_, checkIn) = try #require(state.phase.openSuggestion)

        context.now = Fixture.now.addingTimeInterval(10)
        state = try Machine.reduce(state, .markInterventionDone(checkInId: checkIn.id), context: &context).state
        #expect(state.phase.name == "completed")
        #expect(state.phase(at: Fixture.now.addingTimeInterval(14)).name == "completed")
        #expect(state.phase(at: Fixture.now.addingTimeInterval(15)) == .picker)

        // A tap after the auto-reset starts over from the stored completed phase.
        context.now = Fixture.now.addingTimeInterval(20)
        let next = try Machine.reduce(state, .recordTension(level: 0), context: &context)
        #expect(next.state.phase == .picker)
        #expect(next.records.count == 1)
    }
}
