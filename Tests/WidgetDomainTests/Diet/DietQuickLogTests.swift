import Foundation
import Testing
@testable import WidgetDomain

/// `QuickLogFoodIntent {foodId}`: a food button on the Quick Log widget.
@Suite("Diet quick log")
struct DietQuickLogTests {
    typealias Machine = DietStateMachine

    @Test func logAddsThePortionToTodaysTotals() throws {
        var context = DietFixture.context(now: Fixture.now.addingTimeInterval(90))
        let transition = try Machine.reduce(DietFixture.synced, .quickLogFood(foodId: "banana"), context: &context)
        #expect(transition.state.nutrition == NutritionTotals(calories: 1290, protein: 81.875, carbs: 180, fat: 40))
        #expect(transition.state.dayKey == DietFixture.today)
        #expect(transition.state.lastUpdated == Fixture.now.addingTimeInterval(90))
        #expect(transition.state.recentFoods == DietFixture.synced.recentFoods)
        #expect(transition.openURL == nil)
    }

    @Test func logRecordsOnePendingFoodLogEntryOfThePortion() throws {
        var context = DietFixture.context()
        let transition = try Machine.reduce(DietFixture.synced, .quickLogFood(foodId: "banana"), context: &context)
        #expect(transition.records.count == 1)
        guard case .foodLog(let entry) = try #require(transition.records.first) else {
            Issue.record("expected a food log, got \(transition.records)")
            return
        }
        var fresh = DietFixture.context()
        #expect(entry == FoodLogEntry(
            id: fresh.makeID(), foodId: "banana", name: "Banana", quantity: 120, unit: "g", calories: 90, protein: 1.875,
            carbs: 30, fat: 0, dayKey: DietFixture.today, loggedAt: Fixture.now))
        #expect(UUID(uuidString: entry.id) != nil)
        #expect(transition.records.first?.collection == "food_logs")
    }

    @Test func everyLogGetsAFreshIdAndCounts() throws {
        var context = DietFixture.context()
        var state = DietFixture.synced
        var ids: Set<String> = []
        for _ in 0..<3 {
            let transition = try Machine.reduce(state, .quickLogFood(foodId: "oats"), context: &context)
            ids.formUnion(transition.records.map(\.id))
            state = transition.state
        }
        #expect(ids.count == 3)
        #expect(state.nutrition == NutritionTotals(calories: 1650, protein: 95, carbs: 231, fat: 49))
    }

    @Test func aKeptFoodBeyondTheFourShownCanStillBeLogged() throws {
        var context = DietFixture.context()
        var state = DietFixture.synced
        state.recentFoods = (0..<6).map(DietFixture.food)
        let next = try Machine.reduce(state, .quickLogFood(foodId: "food-5"), context: &context).state
        #expect(next.nutrition.calories == 1200 + 105)
    }

    @Test func logInMindfulModeStillCounts() throws {
        var context = DietFixture.context()
        let next = try Machine.reduce(DietFixture.mindful, .quickLogFood(foodId: "oats"), context: &context).state
        #expect(next.nutrition.calories == 1350)
        #expect(next.trackingMode == .mindful)
    }

    @Test("a food not among the recent foods is unknown_food", arguments: ["apple", "OATS", "food-1"])
    func unknownFood(id: String) {
        var context = DietFixture.context()
        let violation = ruleViolation { _ = try Machine.reduce(DietFixture.synced, .quickLogFood(foodId: id), context: &context) }
        #expect(violation?.code == "unknown_food")
        #expect(violation?.message.contains(id) == true)
        var fresh = DietFixture.context()
        #expect(context.makeID() == fresh.makeID())
    }

    @Test("a malformed food id is invalid_food_id", arguments: ["", "two words", String(repeating: "a", count: 200)])
    func malformedID(id: String) {
        var context = DietFixture.context()
        let violation = ruleViolation { _ = try Machine.reduce(DietFixture.synced, .quickLogFood(foodId: id), context: &context) }
        #expect(violation?.code == "invalid_food_id")
        #expect((violation?.message.count ?? 0) < 200)
    }

    @Test func logBeforeTheFirstSyncIsNotSynced() throws {
        var context = DietFixture.context()
        let foodsOnly = try Machine.reduce(.initial, .updateRecentFoods(foods: [DietFixture.oats]), context: &context).state
        let violation = ruleViolation { _ = try Machine.reduce(foodsOnly, .quickLogFood(foodId: "oats"), context: &context) }
        #expect(violation?.code == "not_synced")
    }

    @Test func logPastTheDailyBoundIsDailyTotalExceeded() {
        var state = DietFixture.synced
        state.nutrition = NutritionTotals(calories: 49_900, protein: 0, carbs: 0, fat: 0)
        var context = DietFixture.context()
        let violation = ruleViolation { _ = try Machine.reduce(state, .quickLogFood(foodId: "oats"), context: &context) }
        #expect(violation?.code == "daily_total_exceeded")

        state.nutrition = NutritionTotals(calories: 0, protein: 0, carbs: 4_980, fat: 0)
        let carbs = ruleViolation { _ = try Machine.reduce(state, .quickLogFood(foodId: "banana"), context: &context) }
        #expect(carbs?.code == "daily_total_exceeded")
    }

    @Test func logOnANewLocalDayStartsFromZero() throws {
        // 00:10 in Berlin on the 23rd: yesterday's lunch no longer counts.
        let afterMidnight = DietFixture.instant("2026-11-23T00:10:00+01:00")
        var context = DietFixture.context(now: afterMidnight)
        let transition = try Machine.reduce(DietFixture.synced, .quickLogFood(foodId: "oats"), context: &context)
        #expect(transition.state.dayKey == DayKey(year: 2026, month: 11, day: 23))
        #expect(transition.state.nutrition == DietFixture.oats.portion)
        guard case .foodLog(let entry) = try #require(transition.records.first) else {
            Issue.record("expected a food log record, got \(transition.records)")
            return
        }
        #expect(entry.dayKey == DayKey(year: 2026, month: 11, day: 23))
    }
}
