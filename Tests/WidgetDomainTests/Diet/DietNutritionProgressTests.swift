import Testing
@testable import WidgetDomain

@Suite("Diet NutritionProgress")
struct DietNutritionProgressTests {
    @Test("calories remaining is max(0, target - calories)", arguments: [
        (0.0, 2000, 2000.0), (1200, 2000, 800), (2000, 2000, 0), (2500, 2000, 0), (10.5, 0, 0), (99.25, 100, 0.75),
    ])
    func remaining(calories: Double, target: Int, expected: Double) {
        #expect(NutritionProgress.caloriesRemaining(calories: calories, target: target) == expected)
    }

    @Test("progress is min(1, current/target) and 0 without a target", arguments: [
        (0.0, 2000.0, 0.0), (500, 2000, 0.25), (2000, 2000, 1), (3000, 2000, 1), (100, 0, 0), (0, 0, 0),
    ])
    func progress(current: Double, target: Double, expected: Double) {
        #expect(NutritionProgress.progress(current: current, target: target) == expected)
    }

    @Test func macroBarsFollowTheSeedsOrderAndFormula() {
        let goals = NutritionGoals(calorieTarget: 2000, proteinTarget: 160, carbsTarget: 0, fatTarget: 65)
        let macros = MacroProgress.all(nutrition: NutritionTotals(calories: 0, protein: 40, carbs: 30, fat: 130), goals: goals)
        #expect(macros.map(\.macro) == [.protein, .carbs, .fat])
        #expect(macros.map(\.progress) == [0.25, 0, 1])
        #expect(macros.map(\.current) == [40, 30, 130])
        #expect(macros.map(\.target) == [160, 0, 65])
    }
}
