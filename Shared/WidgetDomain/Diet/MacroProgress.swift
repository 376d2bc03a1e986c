/// One macro bar of the progress widget.
public struct MacroProgress: Codable, Equatable, Sendable {
    public enum Macro: String, Codable, CaseIterable, Sendable {
        case protein, carbs, fat
    }

    public var macro: Macro
    /// Grams eaten today.
    public var current: Double
    /// Grams targeted today.
    public var target: Double
    /// `current / target`, capped at 1; 0 without a target.
    public var progress: Double

    public init(macro: Macro, current: Double, target: Double) {
        self.macro = macro
        self.current = current
        self.target = target
        progress = NutritionProgress.progress(current: current, target: target)
    }

    /// The three bars, always in this order: protein, carbs, fat.
    public static func all(nutrition: NutritionTotals, goals: NutritionGoals) -> [MacroProgress] {
        [
            MacroProgress(macro: .protein, current: nutrition.protein, target: goals.proteinTarget),
            MacroProgress(macro: .carbs, current: nutrition.carbs, target: goals.carbsTarget),
            MacroProgress(macro: .fat, current: nutrition.fat, target: goals.fatTarget),
        ]
    }
}
