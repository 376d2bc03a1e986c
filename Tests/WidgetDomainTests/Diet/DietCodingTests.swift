import Foundation
import Testing
@testable import WidgetDomain

/// The wire shapes of Diet timelines, entries and state.
@Suite("Diet coding")
struct DietCodingTests {
    func json(_ value: some Encodable) throws -> String {
        String(decoding: try sortedISOEncoder().encode(value), as: UTF8.self)
    }

    @Test func lockScreenEntryIsFlatWithItsKind() throws {
        let entry = TimelineEntry(date: Fixture.now, content: DietWidgetContent(state: DietFixture.synced, kind: .lockScreen, day: DietFixture.today))
        #expect(try json(entry) == """
            {"calorieProgress":0.6,"caloriesRemaining":800,"configuration":{"compactMode":false,"showMacros":true},\
            "date":"2026-11-22T09:30:00Z","dayKey":"2026-11-22","inlineText":"800 calories remaining",\
            "kind":"LockScreenWidget","rectangularText":"800 cal left","view":"calories"}
            """)
    }

    @Test func placeholderEntryCarriesOnlyViewKindAndConfiguration() throws {
        let entry = TimelineEntry(date: Fixture.now, content: DietWidgetContent(state: .initial, kind: .dietProgress, day: DietFixture.today))
        #expect(try json(entry) == """
            {"configuration":{"compactMode":false,"showMacros":true},"date":"2026-11-22T09:30:00Z",\
            "kind":"DietProgressWidget","view":"placeholder"}
            """)
    }

    @Test func progressEntryHasNestedNumbersAndMacros() throws {
        let entry = TimelineEntry(date: Fixture.now, content: DietWidgetContent(state: DietFixture.synced, kind: .dietProgress, day: DietFixture.today))
        let object = try jsonObject(try sortedISOEncoder().encode(entry))
        #expect(Set(object.keys) == [
            "date", "kind", "view", "dayKey", "calorieProgress", "caloriesRemaining", "nutrition", "goals", "macros", "configuration",
        ])
        let macros = try #require(object["macros"] as? [[String: Any]])
        #expect(macros.map { $0["macro"] as? String } == ["protein", "carbs", "fat"])
        let goals = try #require(object["goals"] as? [String: Any])
        #expect(goals["calorieTarget"] as? Int == 2000)
    }

    @Test("every kind's timeline round-trips", arguments: DietWidgetKind.allCases)
    func timelineRoundTrip(kind: DietWidgetKind) throws {
        for state in [DietState.initial, DietFixture.synced, DietFixture.mindful] {
            let timeline = DietTimelinePolicy.timeline(for: state, kind: kind, now: Fixture.now, calendar: DietFixture.calendar())
            let data = try sortedISOEncoder().encode(timeline)
            #expect(try isoDecoder().decode(Timeline<DietWidgetContent>.self, from: data) == timeline)
        }
    }

    @Test func contentWithAnUnknownKindIsRefused() {
        #expect(throws: DecodingError.self) {
            try isoDecoder().decode(DietWidgetContent.self, from: Data(#"{"kind":"MacroWidget","view":"progress"}"#.utf8))
        }
    }

    @Test func stateRoundTripsWithConfigurationsKeyedByKindString() throws {
        var state = DietFixture.mindful
        state.configurations[.quickLog] = DietWidgetConfiguration(showMacros: false, compactMode: true)
        let data = try sortedISOEncoder().encode(state)
        let object = try jsonObject(data)
        let configurations = try #require(object["configurations"] as? [String: Any])
        #expect(Set(configurations.keys) == ["QuickLogWidget"])
        #expect(object["dayKey"] as? String == "2026-11-22")
        #expect(object["trackingMode"] as? String == "mindful")
        #expect(try isoDecoder().decode(DietState.self, from: data) == state)
        #expect(try isoDecoder().decode(DietState.self, from: try sortedISOEncoder().encode(DietState.initial)) == .initial)
    }

    @Test func bodiesDecodeFromTheDocumentedJSON() throws {
        let goals = try isoDecoder().decode(NutritionGoalsUpdate.self, from: Data(#"{"calorieTarget":1800,"fatTarget":70.5}"#.utf8))
        #expect(goals == NutritionGoalsUpdate(calorieTarget: 1800, fatTarget: 70.5))
        let food = try isoDecoder().decode(QuickLogFood.self, from: Data("""
            {"id":"oats","name":"Oatmeal","calories":150,"protein":5,"carbs":27,"fat":3,"defaultQuantity":1,"unit":"bowl"}
            """.utf8))
        #expect(food == DietFixture.oats)
        let totals = try isoDecoder().decode(NutritionTotals.self, from: Data(#"{"calories":1200,"protein":80,"carbs":150,"fat":40}"#.utf8))
        #expect(totals == DietFixture.lunch)
    }

    @Test func foodLogRecordHasTheDocumentedShape() throws {
        var context = DietFixture.context()
        let record = try #require(try DietStateMachine.reduce(DietFixture.synced, .quickLogFood(foodId: "oats"), context: &context).records.first)
        let object = try jsonObject(try sortedISOEncoder().encode(record))
        #expect(object["collection"] as? String == "food_logs")
        let fields = try #require(object["record"] as? [String: Any])
        #expect(Set(fields.keys) == ["id", "foodId", "name", "quantity", "unit", "calories", "protein", "carbs", "fat", "dayKey", "loggedAt"])
        #expect(fields["dayKey"] as? String == "2026-11-22")
        #expect(fields["loggedAt"] as? String == "2026-11-22T09:30:00Z")
    }
}
