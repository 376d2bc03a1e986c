/// The user's daily targets: the seed's `GoalsSnapshot` (calories in kcal, macros in g).
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

    /// The seed's fallbacks for targets the user never set: 2000 kcal, 150 g / 250 g / 65 g.
    public static let `default` = NutritionGoals(calorieTarget: 2000, proteinTarget: 150, carbsTarget: 250, fatTarget: 65)
}
