import Foundation
import Testing
@testable import WidgetDomain

/// `UpdateRecentFoods`: the favourites the Quick Log widget offers.
@Suite("Diet recent foods")
struct DietRecentFoodsTests {
    typealias Machine = DietStateMachine

    func update(_ foods: [QuickLogFood], from state: DietState = DietFixture.synced) throws -> DietState {
        var context = DietFixture.context()
        return try Machine.reduce(state, .updateRecentFoods(foods: foods), context: &context).state
    }

    func violation(_ foods: [QuickLogFood]) -> RuleViolation? {
        var context = DietFixture.context()
        return ruleViolation { _ = try Machine.reduce(DietFixture.synced, .updateRecentFoods(foods: foods), context: &context) }
    }

    @Test func replacesTheListInTheAppsOrder() throws {
        let next = try update([DietFixture.banana, DietFixture.oats, DietFixture.food(1)])
        #expect(next.recentFoods.map(\.id) == ["banana", "oats", "food-1"])
        #expect(next.nutrition == DietFixture.synced.nutrition)
        #expect(next.lastUpdated == DietFixture.synced.lastUpdated)
    }

    @Test("keeps at most the first six", arguments: [6, 7, 10, 50])
    func keepsSix(count: Int) throws {
        let next = try update((0..<count).map(DietFixture.food))
        #expect(next.recentFoods.map(\.id) == (0..<6).map { "food-\($0)" })
    }

    @Test func anEmptyListClearsTheFavourites() throws {
        #expect(try update([]).recentFoods.isEmpty)
    }

    @Test func foodsAreStoredBeforeTheFirstSyncWithoutEndingThePlaceholder() throws {
        let next = try update([DietFixture.oats], from: .initial)
        #expect(next.recentFoods == [DietFixture.oats])
        #expect(next.hasData == false)
    }

    @Test func namesAndUnitsAreTrimmed() throws {
        var food = DietFixture.oats
        food.name = "  Oatmeal \n"
        food.unit = " bowl "
        #expect(try update([food]).recentFoods == [DietFixture.oats])
    }

    @Test func moreThanFiftyIsTooManyFoods() {
        #expect(violation((0..<51).map(DietFixture.food))?.code == "too_many_foods")
    }

    @Test func aRepeatedIdIsDuplicateFoodIdEvenBeyondTheSixKept() {
        #expect(violation([DietFixture.oats, DietFixture.banana, DietFixture.oats])?.code == "duplicate_food_id")
        var late = (0..<8).map(DietFixture.food)
        late.append(DietFixture.food(7))
        #expect(violation(late)?.code == "duplicate_food_id")
    }

    @Test("a bad food id is invalid_food_id", arguments: ["", " ", "has space", "tab\t", "emoji🍌", String(repeating: "x", count: 129)])
    func badID(id: String) {
        var food = DietFixture.oats
        food.id = id
        #expect(violation([food])?.code == "invalid_food_id")
    }

    @Test func aLongestIdIsAccepted() throws {
        var food = DietFixture.oats
        food.id = String(repeating: "x", count: 128)
        #expect(try update([food]).recentFoods.first?.id.count == 128)
    }

    @Test("a bad name is invalid_food_name", arguments: ["", "   ", "Oat\u{0}meal", String(repeating: "é", count: 81)])
    func badName(name: String) {
        var food = DietFixture.oats
        food.name = name
        #expect(violation([DietFixture.banana, food])?.code == "invalid_food_name")
        #expect(violation([DietFixture.banana, food])?.message.contains("foods[1]") == true)
    }

    @Test("a bad unit is invalid_food_unit", arguments: ["", "  ", "g;drop", "<b>", String(repeating: "g", count: 21), "m\nl"])
    func badUnit(unit: String) {
        var food = DietFixture.oats
        food.unit = unit
        #expect(violation([food])?.code == "invalid_food_unit")
    }

    @Test("common units are accepted", arguments: ["g", "ml", "fl oz", "cup", "tbsp.", "Stück", "piece-2", "100g"])
    func goodUnit(unit: String) throws {
        var food = DietFixture.oats
        food.unit = unit
        #expect(try update([food]).recentFoods.first?.unit == unit)
    }

    @Test("a quantity not in (0, 10000] is invalid_food_quantity", arguments: [0, -1, 10_000.5, Double.nan, .infinity])
    func badQuantity(quantity: Double) {
        var food = DietFixture.oats
        food.defaultQuantity = quantity
        #expect(violation([food])?.code == "invalid_food_quantity")
    }

    @Test("bad per-unit nutrition is invalid_food_nutrition", arguments: [
        (-1.0, 0.0), (10_001, 0), (.nan, 0), (0, -0.5), (0, 1_000.5), (0, .infinity),
    ])
    func badNutrition(calories: Double, fat: Double) {
        var food = DietFixture.oats
        food.calories = calories
        food.fat = fat
        #expect(violation([food])?.code == "invalid_food_nutrition")
    }

    @Test func aPortionOverTheBoundIsInvalidFoodNutrition() {
        var food = DietFixture.banana
        food.calories = 9
        food.defaultQuantity = 2_000  // 18 000 kcal a tap
        #expect(violation([food])?.code == "invalid_food_nutrition")
    }

    @Test func oneBadFoodRefusesTheWholeList() {
        var bad = DietFixture.banana
        bad.calories = -3
        var context = DietFixture.context()
        let violation = ruleViolation {
            _ = try Machine.reduce(DietFixture.synced, .updateRecentFoods(foods: [DietFixture.food(1), bad]), context: &context)
        }
        #expect(violation?.code == "invalid_food_nutrition")
        #expect(violation?.message.contains("foods[1]") == true)
    }
}
