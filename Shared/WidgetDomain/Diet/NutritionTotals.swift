/// Calories (kcal) and macros (g) eaten on one local day; also the body of the `UpdateNutrition`
/// app message.
public struct NutritionTotals: Codable, Equatable, Sendable {
    public var calories: Double
    public var protein: Double
    public var carbs: Double
    public var fat: Double

    public init(calories: Double, protein: Double, carbs: Double, fat: Double) {
        self.calories = calories
        self.protein = protein
        self.carbs = carbs
        self.fat = fat
    }

    /// A day nothing was logged on: what every day starts with at the user's midnight.
    public static let zero = NutritionTotals(calories: 0, protein: 0, carbs: 0, fat: 0)

    public static func + (lhs: NutritionTotals, rhs: NutritionTotals) -> NutritionTotals {
        NutritionTotals(
            calories: lhs.calories + rhs.calories, protein: lhs.protein + rhs.protein,
            carbs: lhs.carbs + rhs.carbs, fat: lhs.fat + rhs.fat)
    }

    /// Every value times `factor`: a food's per-unit nutrition scaled to a portion.
    public func scaled(by factor: Double) -> NutritionTotals {
        NutritionTotals(calories: calories * factor, protein: protein * factor, carbs: carbs * factor, fat: fat * factor)
    }

    /// The four values with their wire names, so validation can name the offending field.
    var namedValues: [(name: String, value: Double)] {
        [("calories", calories), ("protein", protein), ("carbs", carbs), ("fat", fat)]
    }
}
