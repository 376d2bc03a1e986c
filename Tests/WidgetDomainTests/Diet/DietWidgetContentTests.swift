import Testing
@testable import WidgetDomain

/// What each kind shows of the state: every widget view as data.
@Suite("DietWidgetContent")
struct DietWidgetContentTests {
    let day = DietFixture.today

    // MARK: Daily Progress

    @Test func progressShowsRemainingProgressNumbersAndMacros() {
        let content = DietProgressContent(state: DietFixture.synced, day: day)
        #expect(content == DietProgressContent(
            view: .progress, dayKey: day, calorieProgress: 0.6, caloriesRemaining: 800, nutrition: DietFixture.lunch,
            goals: .default,
            macros: [
                MacroProgress(macro: .protein, current: 80, target: 150),
                MacroProgress(macro: .carbs, current: 150, target: 250),
                MacroProgress(macro: .fat, current: 40, target: 65),
            ],
            configuration: .default))
        #expect(content.macros?.map(\.progress) == [80.0 / 150, 0.6, 40.0 / 65])
    }

    @Test func progressWithoutMacrosWhenConfiguredSo() {
        var state = DietFixture.synced
        state.configurations[.dietProgress] = DietWidgetConfiguration(showMacros: false, compactMode: true)
        state.configurations[.lockScreen] = DietWidgetConfiguration(showMacros: true, compactMode: false)
        let content = DietProgressContent(state: state, day: day)
        #expect(content.macros == nil)
        #expect(content.nutrition == DietFixture.lunch)
        #expect(content.configuration == DietWidgetConfiguration(showMacros: false, compactMode: true))
    }

    @Test func overTargetIsZeroRemainingAndFullRing() {
        var state = DietFixture.synced
        state.nutrition.calories = 2600
        let content = DietProgressContent(state: state, day: day)
        #expect(content.caloriesRemaining == 0)
        #expect(content.calorieProgress == 1)
    }

    @Test func zeroCalorieTargetGivesZeroProgress() {
        var state = DietFixture.synced
        state.goals.calorieTarget = 0
        let content = DietProgressContent(state: state, day: day)
        #expect(content.calorieProgress == 0)
        #expect(content.caloriesRemaining == 0)
    }

    @Test func mindfulProgressShowsTheRingAndNoNumbers() {
        let content = DietProgressContent(state: DietFixture.mindful, day: day)
        #expect(content == DietProgressContent(view: .mindful, dayKey: day, calorieProgress: 0.6, configuration: .default))
    }

    @Test func progressWithoutDataIsThePlaceholder() {
        var state = DietState.initial
        state.configurations[.dietProgress] = DietWidgetConfiguration(showMacros: false)
        #expect(DietProgressContent(state: state, day: day) == DietProgressContent(
            view: .placeholder, configuration: DietWidgetConfiguration(showMacros: false)))
    }

    // MARK: Quick Log

    @Test func quickLogShowsTheFirstFourFoodsWithNameAndCalories() throws {
        var state = DietFixture.synced
        state.recentFoods = (0..<6).map(DietFixture.food)
        let content = QuickLogContent(state: state, day: day)
        #expect(content.view == .foods)
        let foods = try #require(content.foods)
        #expect(foods.map(\.id) == ["food-0", "food-1", "food-2", "food-3"])
        #expect(foods.map(\.name) == ["Food 0", "Food 1", "Food 2", "Food 3"])
        #expect(foods.map(\.calories) == [100, 101, 102, 103])
        #expect(content.message == nil)
        #expect(content.configuration == .default)
    }

    @Test func quickLogButtonCarriesPortionInfo() throws {
        let content = QuickLogContent(state: DietFixture.synced, day: day)
        #expect(content.foods?.last == QuickLogButton(id: "banana", name: "Banana", calories: 0.75, defaultQuantity: 120, unit: "g"))
    }

    @Test func quickLogInMindfulModeHidesCalories() throws {
        let foods = try #require(QuickLogContent(state: DietFixture.mindful, day: day).foods)
        #expect(foods.map(\.name) == ["Oatmeal", "Banana"])
        #expect(foods.allSatisfy { $0.calories == nil })
    }

    @Test func quickLogWithoutFoodsOrDataIsTheAddFavoritesState() {
        var noFoods = DietFixture.synced
        noFoods.recentFoods = []
        #expect(QuickLogContent(state: noFoods, day: day) == QuickLogContent(
            view: .empty, dayKey: day, message: "Add favorites to quick log", configuration: .default))

        var foodsOnly = DietState.initial
        foodsOnly.recentFoods = [DietFixture.oats]
        #expect(QuickLogContent(state: foodsOnly, day: day) == QuickLogContent(
            view: .empty, message: "Add favorites to quick log", configuration: .default))
    }

    // MARK: Lock Screen

    @Test func lockScreenShowsRemainingCaloriesAndProgress() {
        var state = DietFixture.synced
        state.nutrition.calories = 1234.9
        let content = DietLockScreenContent(state: state, day: day)
        #expect(content.view == .calories)
        #expect(content.caloriesRemaining == 2000 - 1234.9)
        #expect(content.calorieProgress == 1234.9 / 2000)
        #expect(content.rectangularText == "765 cal left")
        #expect(content.inlineText == "765 calories remaining")
        #expect(content.dayKey == day)
    }

    @Test func lockScreenWithoutDataSaysSyncRequired() {
        #expect(DietLockScreenContent(state: .initial, day: day) == DietLockScreenContent(
            view: .syncRequired, calorieProgress: 0, rectangularText: "Open app to sync", inlineText: "Sync required",
            configuration: .default))
    }

    @Test func lockScreenInMindfulModeShowsNoNumbers() {
        let content = DietLockScreenContent(state: DietFixture.mindful, day: day)
        #expect(content.view == .mindful)
        #expect(content.caloriesRemaining == nil)
        #expect(content.calorieProgress == 0.6)
        #expect(!content.inlineText.contains { $0.isNumber })
        #expect(!content.rectangularText.contains { $0.isNumber })
    }

    @Test func lockScreenCarriesItsOwnConfiguration() {
        var state = DietFixture.synced
        state.configurations[.lockScreen] = DietWidgetConfiguration(showMacros: false, compactMode: true)
        #expect(DietLockScreenContent(state: state, day: day).configuration == DietWidgetConfiguration(showMacros: false, compactMode: true))
        #expect(QuickLogContent(state: state, day: day).configuration == .default)
    }

    // MARK: Dispatch

    @Test func contentOfAKindIsThatKindsView() {
        let state = DietFixture.synced
        #expect(DietWidgetContent(state: state, kind: .dietProgress, day: day) == .progress(DietProgressContent(state: state, day: day)))
        #expect(DietWidgetContent(state: state, kind: .quickLog, day: day) == .quickLog(QuickLogContent(state: state, day: day)))
        #expect(DietWidgetContent(state: state, kind: .lockScreen, day: day) == .lockScreen(DietLockScreenContent(state: state, day: day)))
    }
}
