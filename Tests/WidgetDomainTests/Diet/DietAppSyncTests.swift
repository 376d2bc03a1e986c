import Foundation
import Testing
@testable import WidgetDomain

/// `UpdateNutrition` and `UpdateGoals`: the app's numbers.
@Suite("Diet app sync")
struct DietAppSyncTests {
    typealias Machine = DietStateMachine

    @Test func initialStateHasNoDataAndTheSeedsDefaults() {
        let state = DietState.initial
        #expect(state.hasData == false)
        #expect(state.lastUpdated == nil)
        #expect(state.nutrition == .zero)
        #expect(state.goals == NutritionGoals(calorieTarget: 2000, proteinTarget: 150, carbsTarget: 250, fatTarget: 65))
        #expect(state.recentFoods.isEmpty)
        #expect(state.trackingMode == .full)
        #expect(DietWidgetKind.allCases.allSatisfy { state.configuration(for: $0) == DietWidgetConfiguration(showMacros: true, compactMode: false) })
    }

    @Test func nutritionSyncsTodaysTotalsAndEndsThePlaceholder() throws {
        var context = DietFixture.context()
        let transition = try Machine.reduce(.initial, .updateNutrition(DietFixture.lunch), context: &context)
        #expect(transition.state.hasData)
        #expect(transition.state.dayKey == DietFixture.today)
        #expect(transition.state.nutrition == DietFixture.lunch)
        #expect(transition.state.goals == .default)
        #expect(transition.state.lastUpdated == Fixture.now)
        #expect(transition.records.isEmpty)
        #expect(transition.openURL == nil)
    }

    @Test func nutritionReplacesTotalsAndKeepsEverythingElse() throws {
        var context = DietFixture.context(now: Fixture.now.addingTimeInterval(60))
        let totals = NutritionTotals(calories: 1500.5, protein: 90, carbs: 170, fat: 50)
        let next = try Machine.reduce(DietFixture.synced, .updateNutrition(totals), context: &context).state
        var expected = DietFixture.synced
        expected.nutrition = totals
        expected.lastUpdated = Fixture.now.addingTimeInterval(60)
        #expect(next == expected)
    }

    @Test("a nutrition value outside 0…bound or not finite is invalid_nutrition", arguments: [
        NutritionTotals(calories: -1, protein: 0, carbs: 0, fat: 0),
        NutritionTotals(calories: 50_000.5, protein: 0, carbs: 0, fat: 0),
        NutritionTotals(calories: .nan, protein: 0, carbs: 0, fat: 0),
        NutritionTotals(calories: 0, protein: .infinity, carbs: 0, fat: 0),
        NutritionTotals(calories: 0, protein: 0, carbs: 5_001, fat: 0),
        NutritionTotals(calories: 0, protein: 0, carbs: 0, fat: -0.001),
    ])
    func invalidNutrition(totals: NutritionTotals) {
        var context = DietFixture.context()
        let violation = ruleViolation { _ = try Machine.reduce(DietFixture.synced, .updateNutrition(totals), context: &context) }
        #expect(violation?.code == "invalid_nutrition")
    }

    @Test func boundsThemselvesAreAccepted() throws {
        var context = DietFixture.context()
        let totals = NutritionTotals(calories: 50_000, protein: 5_000, carbs: 0, fat: 5_000)
        #expect(try Machine.reduce(.initial, .updateNutrition(totals), context: &context).state.nutrition == totals)
    }

    @Test func goalsWithAllTargetsReplaceTheGoals() throws {
        var context = DietFixture.context()
        let update = NutritionGoalsUpdate(calorieTarget: 1800, proteinTarget: 120, carbsTarget: 200, fatTarget: 60)
        let next = try Machine.reduce(DietFixture.synced, .updateGoals(update), context: &context).state
        #expect(next.goals == NutritionGoals(calorieTarget: 1800, proteinTarget: 120, carbsTarget: 200, fatTarget: 60))
        #expect(next.nutrition == DietFixture.lunch)
    }

    @Test func missingTargetsTakeTheSeedsDefaultsNotThePreviousValues() throws {
        var context = DietFixture.context()
        var start = DietFixture.synced
        start.goals = NutritionGoals(calorieTarget: 1500, proteinTarget: 100, carbsTarget: 100, fatTarget: 40)
        let next = try Machine.reduce(start, .updateGoals(NutritionGoalsUpdate(proteinTarget: 130)), context: &context).state
        #expect(next.goals == NutritionGoals(calorieTarget: 2000, proteinTarget: 130, carbsTarget: 250, fatTarget: 65))
        let empty = try Machine.reduce(start, .updateGoals(NutritionGoalsUpdate()), context: &context).state
        #expect(empty.goals == .default)
    }

    @Test func goalsBeforeAnyNutritionStartTodayFromZero() throws {
        var context = DietFixture.context()
        let next = try Machine.reduce(.initial, .updateGoals(NutritionGoalsUpdate(calorieTarget: 2200)), context: &context).state
        #expect(next.hasData)
        #expect(next.dayKey == DietFixture.today)
        #expect(next.nutrition == .zero)
        #expect(next.goals.calorieTarget == 2200)
        #expect(next.lastUpdated == Fixture.now)
    }

    @Test func zeroTargetsAreAllowed() throws {
        var context = DietFixture.context()
        let update = NutritionGoalsUpdate(calorieTarget: 0, proteinTarget: 0, carbsTarget: 0, fatTarget: 0)
        let next = try Machine.reduce(DietFixture.synced, .updateGoals(update), context: &context).state
        #expect(next.goals.calorieTarget == 0)
    }

    @Test("a target outside its range is invalid_nutrition_goal", arguments: [
        NutritionGoalsUpdate(calorieTarget: -1),
        NutritionGoalsUpdate(calorieTarget: 20_001),
        NutritionGoalsUpdate(calorieTarget: Int.max),
        NutritionGoalsUpdate(proteinTarget: -5),
        NutritionGoalsUpdate(carbsTarget: 2_000.5),
        NutritionGoalsUpdate(fatTarget: .nan),
        NutritionGoalsUpdate(fatTarget: -.infinity),
    ])
    func invalidGoal(update: NutritionGoalsUpdate) {
        var context = DietFixture.context()
        let violation = ruleViolation { _ = try Machine.reduce(DietFixture.synced, .updateGoals(update), context: &context) }
        #expect(violation?.code == "invalid_nutrition_goal")
    }
}
