import Foundation
import Testing
@testable import WidgetDomain

/// Totals belong to the user's local day: at their midnight the day starts from zero.
@Suite("Diet day rollover")
struct DietDayRolloverTests {
    typealias Machine = DietStateMachine
    let tomorrow = DayKey(year: 2026, month: 11, day: 23)

    @Test("any message on a new local day first resets the totals", arguments: [
        DietIntent.setTrackingMode(mode: "full"),
        .configureWidget(kind: "QuickLogWidget", showMacros: true, compactMode: false),
        .updateRecentFoods(foods: [DietFixture.oats, DietFixture.banana]),
        .updateGoals(NutritionGoalsUpdate()),
    ])
    func messageOnANewDayRollsOver(intent: DietIntent) throws {
        var context = DietFixture.context(now: DietFixture.instant("2026-11-23T07:00:00+01:00"))
        let next = try Machine.reduce(DietFixture.synced, intent, context: &context).state
        #expect(next.dayKey == tomorrow)
        #expect(next.nutrition == .zero)
        #expect(next.goals == .default)
        #expect(next.recentFoods == DietFixture.synced.recentFoods)
    }

    @Test func aMessageJustBeforeMidnightKeepsTheDay() throws {
        var context = DietFixture.context(now: DietFixture.instant("2026-11-22T23:59:59+01:00"))
        let next = try Machine.reduce(DietFixture.synced, .setTrackingMode(mode: "full"), context: &context).state
        #expect(next == DietFixture.synced)
    }

    @Test func nutritionOnANewDayIsThatDaysTotals() throws {
        var context = DietFixture.context(now: DietFixture.instant("2026-11-24T08:00:00+01:00"))
        let breakfast = NutritionTotals(calories: 300, protein: 10, carbs: 50, fat: 8)
        let next = try Machine.reduce(DietFixture.synced, .updateNutrition(breakfast), context: &context).state
        #expect(next.dayKey == DayKey(year: 2026, month: 11, day: 24))
        #expect(next.nutrition == breakfast)
    }

    @Test func aRefusedMessageOnANewDayChangesNothing() {
        var context = DietFixture.context(now: DietFixture.instant("2026-11-23T07:00:00+01:00"))
        let violation = ruleViolation { _ = try Machine.reduce(DietFixture.synced, .setTrackingMode(mode: "x"), context: &context) }
        #expect(violation?.code == "invalid_tracking_mode")
    }

    @Test func theDayFollowsTheUsersZoneNotUTC() throws {
        // 23:30 UTC on the 22nd is already the 23rd in Berlin and still the 22nd in New York.
        let late = DietFixture.instant("2026-11-22T23:30:00Z")
        var berlin = DietFixture.context(now: late, zone: DietFixture.berlin)
        #expect(try Machine.reduce(DietFixture.synced, .setTrackingMode(mode: "full"), context: &berlin).state.nutrition == .zero)
        var newYork = DietFixture.context(now: late, zone: DietFixture.newYork)
        #expect(try Machine.reduce(DietFixture.synced, .setTrackingMode(mode: "full"), context: &newYork).state == DietFixture.synced)
    }

    @Test func aZoneChangeEastwardsIntoTheNextDayResets() throws {
        // Synced on the 22nd in Berlin; at 07:00 on the 23rd in Tokyo (still 23:00 on the 22nd in
        // Berlin) the user's day has moved on.
        var context = DietFixture.context(now: DietFixture.instant("2026-11-23T07:00:00+09:00"), zone: DietFixture.tokyo)
        let next = try Machine.reduce(DietFixture.synced, .quickLogFood(foodId: "oats"), context: &context).state
        #expect(next.dayKey == tomorrow)
        #expect(next.nutrition == DietFixture.oats.portion)
    }

    @Test func aZoneChangeWestwardsBackIntoThePreviousDayResetsToThatDay() throws {
        // Synced on the 23rd in Tokyo, then in New York it is the 22nd again: the widget holds
        // one day, the one the user is living, so it starts that day from zero.
        var state = DietFixture.synced
        state.dayKey = tomorrow
        var context = DietFixture.context(now: DietFixture.instant("2026-11-22T18:00:00-05:00"), zone: DietFixture.newYork)
        let next = try Machine.reduce(state, .setTrackingMode(mode: "full"), context: &context).state
        #expect(next.dayKey == DietFixture.today)
        #expect(next.nutrition == .zero)
    }

    @Test func aStateWithoutDataHasNothingToRollOver() throws {
        var context = DietFixture.context(now: DietFixture.instant("2026-12-01T12:00:00+01:00"))
        let next = try Machine.reduce(.initial, .setTrackingMode(mode: "mindful"), context: &context).state
        #expect(next.dayKey == nil)
        #expect(next.hasData == false)
    }

    @Test func nutritionOnADayIsTheStoredTotalsOnlyForTheirDay() {
        #expect(DietFixture.synced.nutrition(on: DietFixture.today) == DietFixture.lunch)
        #expect(DietFixture.synced.nutrition(on: tomorrow) == .zero)
        #expect(DietFixture.synced.nutrition(on: DietFixture.today.previous) == .zero)
    }
}
