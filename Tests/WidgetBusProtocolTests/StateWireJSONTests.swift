import Foundation
import Testing
import WidgetDomain
@testable import WidgetBusProtocol

/// intent-handler writes each new state field by field (``StateRecord/encodingStateOnce()``),
/// not through its `Codable` conformance; both must give the same bytes. Each case writes a
/// state both ways — the `Encodable` path through the wire's encoder, which `JSONEncoder`'s tests
/// pin — and compares them: for the golden world's states, and for states with every optional
/// field present and absent.
@Suite("States written directly match their Codable encoding")
struct StateWireJSONTests {
    static let now = GoldenFixtures.now
    static let tricky = GoldenFixtures.trickyText
    static let day = DayKey(year: 2026, month: 11, day: 22)

    func expectSameBytes(_ state: WidgetState, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let expected = try WireCodec().encode(state)
        let record = try StateRecord(user: "u", app: state.app, version: 1, state: state).encodingStateOnce()
        let written = try #require(record.encodedState, sourceLocation: sourceLocation).bytes
        #expect(String(decoding: written, as: UTF8.self) == String(decoding: expected, as: UTF8.self), sourceLocation: sourceLocation)
    }

    @Test("every app's initial state", arguments: WidgetApp.allCases)
    func initial(app: WidgetApp) throws {
        try expectSameBytes(.initial(for: app))
    }

    @Test func theGoldenWorldsStates() throws {
        let world = try GoldenFixtures.world()
        for state in [
            WidgetState.tensionCheck(world.tensionSuggestion), .tensionCheck(world.tensionCompleted), .diet(world.diet),
            .tenX(world.tenX), .stressMonitor(world.stress), .jitter(world.jitterSipping), .jitter(world.jitterCompleted),
            .jitter(world.jitterExpiring),
        ] {
            try expectSameBytes(state)
        }
    }

    @Test func tensionCheckEveryPhase() throws {
        let suggestion = InterventionSuggestion.pool[0]
        for checkIn in [
            StressCheckIn(id: Self.tricky, tensionLevel: 9, suggestedInterventionId: suggestion.interventionId, interventionCompleted: true, createdAt: Self.now),
            StressCheckIn(id: "c", tensionLevel: 3, suggestedInterventionId: nil, createdAt: Self.now),
        ] {
            try expectSameBytes(.tensionCheck(TensionCheckState(phase: .suggestion(intervention: suggestion, checkIn: checkIn), lastSuggestionId: "s")))
        }
        try expectSameBytes(.tensionCheck(TensionCheckState(phase: .completed(interventionName: Self.tricky, checkInId: "c", resetAt: Self.now))))
    }

    @Test func dietWithEveryFieldAndEdgeNumbers() throws {
        let foods = GoldenFixtures.edgeDoubles.enumerated().map { index, value in
            QuickLogFood(id: "f\(index)", name: Self.tricky, calories: value, protein: -value, carbs: value / 3, fat: 0, defaultQuantity: value, unit: "g")
        }
        let configurations = Dictionary(uniqueKeysWithValues: DietWidgetKind.allCases.enumerated().map {
            ($0.element, DietWidgetConfiguration(showMacros: $0.offset % 2 == 0, compactMode: $0.offset % 2 == 1))
        })
        for value in GoldenFixtures.edgeDoubles {
            try expectSameBytes(.diet(DietState(
                lastUpdated: Self.now, dayKey: Self.day, nutrition: NutritionTotals(calories: value, protein: value, carbs: -value, fat: 1),
                goals: NutritionGoals(calorieTarget: -1, proteinTarget: value, carbsTarget: 0, fatTarget: value),
                recentFoods: foods, trackingMode: .mindful, configurations: configurations)))
        }
        try expectSameBytes(.diet(DietState(configurations: [.quickLog: .default])))
    }

    @Test func tenXWithEveryOptionalPresentAndAbsent() throws {
        let focuses = [
            TenXFocus(id: "a", title: GoldenFixtures.trickyTitle, goalId: "g", sortOrder: 0, createdAt: Self.now),
            TenXFocus(
                id: "b", title: "", goalId: "g", sortOrder: 1, isCompleted: true, completedAt: Self.now, carriedFromDayKey: Self.day,
                createdAt: Self.now),
        ]
        try expectSameBytes(.tenX(TenXState(
            goals: [TenXGoal(id: "g", title: Self.tricky, createdAt: Self.now), TenXGoal(id: "h", title: "x", createdAt: Self.now, archivedAt: Self.now)],
            dayEntries: [TenXDayEntry(dayKey: Self.day, createdAt: Self.now, focuses: focuses)], hasCompletedOnboarding: true,
            streakTail: TenXStreakTail(throughDayKey: Self.day, length: 12))))
    }

    @Test func stressMonitorWithEveryOptionalPresentAndAbsent() throws {
        let history = GoldenFixtures.edgeDoubles.enumerated().map { HRVSample(milliseconds: $0.element, measuredAt: GoldenFixtures.edgeDates[$0.offset % GoldenFixtures.edgeDates.count]) }
        try expectSameBytes(.stressMonitor(StressMonitorState(
            latest: StressMeasurement(stressLevel: 71, measuredAt: Self.now), hrvHistory: history, refreshRequestedAt: Self.now)))
        try expectSameBytes(.stressMonitor(StressMonitorState(hrvHistory: history)))
    }

    @Test func jitterWithEveryOptionalPresentAndAbsent() throws {
        let scores = JitterScores(crashRiskScore: 80, focusScore: -1, currentCaffeineLevel: 0, lastDrinkTime: Self.now, lastDrinkName: Self.tricky, lastUpdated: Self.now)
        try expectSameBytes(.jitter(JitterState(scores: scores, session: DrinkSession(id: Self.tricky, startTime: Self.now))))
        try expectSameBytes(.jitter(JitterState(scores: JitterScores(crashRiskScore: 1, focusScore: 2, currentCaffeineLevel: 3, lastUpdated: Self.now))))
    }
}
