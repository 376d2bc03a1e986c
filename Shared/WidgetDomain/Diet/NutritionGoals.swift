/// The user's daily targets (calories in kcal, macros in g).
public struct NutritionGoals: Codable, Equatable, Sendable {
    public var calorieTarget: Int
    public var proteinTarget: Double
    public var carbsTarget: Double
    public var fatTarget: Double

    public init(calorieTarget: Int, proteinTarget: Double, carbsTarget: Double, fatTarget: Double) {
        self.calorieTarget = calorieTarget
        self.proteinTarget = proteinTarget
        self.carbsTarget = carbsTarget
        self.fatTarget = fatTarget
    }

    /// Fallbacks for targets the user never set: 2000 kcal, 150 g protein, 250 g carbs, 65 g fat.
    public static let `default` = NutritionGoals(calorieTarget: 2000, proteinTarget: 150, carbsTarget: 250, fatTarget: 65)
}
