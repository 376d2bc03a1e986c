/// A favourite food the Quick Log widget offers.
///
/// `calories` and the macros are per one `unit`; a quick log eats `defaultQuantity` units.
public struct QuickLogFood: Codable, Equatable, Sendable, Identifiable {
    public var id: String
    public var name: String
    public var calories: Double
    public var protein: Double
    public var carbs: Double
    public var fat: Double
    public var defaultQuantity: Double
    public var unit: String

    public init(
        id: String, name: String, calories: Double, protein: Double, carbs: Double, fat: Double,
        defaultQuantity: Double, unit: String
    ) {
        self.id = id
        self.name = name
        self.calories = calories
        self.protein = protein
        self.carbs = carbs
        self.fat = fat
        self.defaultQuantity = defaultQuantity
        self.unit = unit
    }

    /// Nutrition of one unit.
    public var perUnit: NutritionTotals {
        NutritionTotals(calories: calories, protein: protein, carbs: carbs, fat: fat)
    }

    /// Nutrition of what one quick-log tap eats: per-unit values × `defaultQuantity`.
    public var portion: NutritionTotals {
        perUnit.scaled(by: defaultQuantity)
    }
}
