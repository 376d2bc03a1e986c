/// The body of the `UpdateGoals` app message: the user's goals record, where an unset target is
/// absent. An absent target falls back to its default rather than keeping the previous value, so
/// the message always states all goals.
public struct NutritionGoalsUpdate: Codable, Equatable, Sendable {
    public var calorieTarget: Int?
    public var proteinTarget: Double?
    public var carbsTarget: Double?
    public var fatTarget: Double?

    public init(calorieTarget: Int? = nil, proteinTarget: Double? = nil, carbsTarget: Double? = nil, fatTarget: Double? = nil) {
        self.calorieTarget = calorieTarget
        self.proteinTarget = proteinTarget
        self.carbsTarget = carbsTarget
        self.fatTarget = fatTarget
    }

    /// The goals this update states, defaults filled in (not yet validated).
    public var goals: NutritionGoals {
        NutritionGoals(
            calorieTarget: calorieTarget ?? NutritionGoals.default.calorieTarget,
            proteinTarget: proteinTarget ?? NutritionGoals.default.proteinTarget,
            carbsTarget: carbsTarget ?? NutritionGoals.default.carbsTarget,
            fatTarget: fatTarget ?? NutritionGoals.default.fatTarget)
    }
}
