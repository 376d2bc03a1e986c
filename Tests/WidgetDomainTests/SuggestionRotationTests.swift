import Testing
@testable import WidgetDomain

@Suite("Suggestion rotation")
struct SuggestionRotationTests {
    typealias Machine = TensionCheckStateMachine

    @Test("200 consecutive high taps never repeat a suggestion and use all three", arguments: [
        UInt64(0), 1, 42, 2026, .max,
    ])
    func consecutiveHighTaps(seed: UInt64) throws {
        var context = Fixture.context(seed: seed)
        var state = TensionCheckState.initial
        var previous: String?
        var seen: Set<String> = []
        for tap in 0..<200 {
            let transition = try Machine.reduce(
                state, .recordTension(level: tap.isMultiple(of: 2) ? 7 : 10), context: &context)
            let (intervention, checkIn) = try #require(transition.state.phase.openSuggestion)
            #expect(intervention.interventionId != previous, "tap \(tap) repeated \(intervention.interventionId)")
            #expect(checkIn.suggestedInterventionId == intervention.interventionId)
            #expect(transition.state.lastSuggestionId == intervention.interventionId)
            seen.insert(intervention.interventionId)
            previous = intervention.interventionId
            state = transition.state
        }
        #expect(seen == Set(InterventionSuggestion.pool.map(\.interventionId)))
    }

    @Test func rotationSurvivesLowTapsSkipsAndCompletions() throws {
        var context = Fixture.context(seed: 17)
        var state = TensionCheckState.initial
        var previous: String?
        for round in 0..<60 {
            state = try Machine.reduce(state, .recordTension(level: 10), context: &context).state
            let (intervention, checkIn) = try #require(state.phase.openSuggestion)
            #expect(intervention.interventionId != previous)
            previous = intervention.interventionId
            switch round % 3 {
            case 0: state = try Machine.reduce(state, .recordTension(level: 0), context: &context).state
            case 1: state = try Machine.reduce(state, .resetWidget, context: &context).state
            default: state = try Machine.reduce(state, .markInterventionDone(checkInId: checkIn.id), context: &context).state
            }
            #expect(state.lastSuggestionId == previous)
        }
    }
}
