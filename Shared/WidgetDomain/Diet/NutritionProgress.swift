/// The progress arithmetic every Diet kind shares (calories remaining, calorie progress, a macro
/// bar's progress), defined once so every kind rounds and clamps the same way.
public enum NutritionProgress {
    /// Calories still to eat today; never negative once the target is passed.
    public static func caloriesRemaining(calories: Double, target: Int) -> Double {
        max(0, Double(target) - calories)
    }

    /// Share of `target` reached, capped at 1; 0 when there is no target to reach.
    public static func progress(current: Double, target: Double) -> Double {
        guard target > 0 else { return 0 }
        return min(1.0, current / target)
    }
}
