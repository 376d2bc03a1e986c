import Testing
@testable import WidgetDomain

@Suite("InterventionSuggestion")
struct InterventionSuggestionTests {
    @Test func poolIsTheSeedsThreeInterventions() {
        #expect(InterventionSuggestion.pool.map(\.interventionId)
            == ["diaphragm_breathing", "jaw_relaxation", "mindfulness_minutes"])
        #expect(InterventionSuggestion.pool.map(\.name) == ["Diaphragm Breathing", "Jaw Release", "Body Scan"])
        #expect(InterventionSuggestion.pool.map(\.actionLabel) == [
            "Try 10 slow breaths (4s in, 6s out)",
            "Let your jaw hang loose for 30 seconds",
            "Do a 2-minute body scan",
        ])
    }

    @Test("pick never returns the excluded id (seed 7a)", arguments: InterventionSuggestion.pool.map(\.interventionId))
    func pickExcludesLastId(lastId: String) {
        var random = SeededRandom(seed: 7)
        for _ in 0..<100 {
            #expect(InterventionSuggestion.pick(excluding: lastId, using: &random).interventionId != lastId)
        }
    }

    @Test("pick reaches both other interventions", arguments: InterventionSuggestion.pool.map(\.interventionId))
    func pickReachesEveryOther(lastId: String) {
        var random = SeededRandom(seed: 11)
        let picked = Set((0..<100).map { _ in InterventionSuggestion.pick(excluding: lastId, using: &random).interventionId })
        #expect(picked == Set(InterventionSuggestion.pool.map(\.interventionId)).subtracting([lastId]))
    }

    @Test("with nothing to exclude, pick uses the whole pool", arguments: [nil, "no_such_intervention"] as [String?])
    func pickWithoutExclusion(lastId: String?) {
        var random = SeededRandom(seed: 3)
        let picked = Set((0..<100).map { _ in InterventionSuggestion.pick(excluding: lastId, using: &random).interventionId })
        #expect(picked == Set(InterventionSuggestion.pool.map(\.interventionId)))
    }

    @Test func pickIsDeterministicForASeed() {
        var first = SeededRandom(seed: 99)
        var second = SeededRandom(seed: 99)
        let a = (0..<20).map { _ in InterventionSuggestion.pick(excluding: nil, using: &first) }
        let b = (0..<20).map { _ in InterventionSuggestion.pick(excluding: nil, using: &second) }
        #expect(a == b)
    }

    @Test func namedFindsPoolEntriesOnly() {
        for suggestion in InterventionSuggestion.pool {
            #expect(InterventionSuggestion.named(suggestion.interventionId) == suggestion)
        }
        #expect(InterventionSuggestion.named("no_such_intervention") == nil)
        #expect(InterventionSuggestion.named("") == nil)
    }
}
