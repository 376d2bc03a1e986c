/// The Diet widgets' buttons and the Diet app's writes; both change ``DietState`` the same way.
///
/// Values arrive as the client sent them; ``DietStateMachine`` validates every one.
public enum DietIntent: Equatable, Sendable {
    /// A food button on the Quick Log widget: `QuickLogFoodIntent {foodId}`.
    case quickLogFood(foodId: String)
    /// A widget's configuration: `ConfigureDietWidgetIntent {kind, showMacros?, compactMode?}`;
    /// an absent flag takes its default (macros shown, not compact).
    case configureWidget(kind: String, showMacros: Bool?, compactMode: Bool?)
    /// The app's totals for the user's current day: `UpdateNutrition {calories, protein, carbs, fat}`.
    case updateNutrition(NutritionTotals)
    /// The app's goals record: `UpdateGoals {calorieTarget?, proteinTarget?, carbsTarget?, fatTarget?}`.
    case updateGoals(NutritionGoalsUpdate)
    /// The app's favourites: `UpdateRecentFoods {foods}`; the first six are kept.
    case updateRecentFoods(foods: [QuickLogFood])
    /// `SetTrackingMode {mode: "full" | "mindful"}`.
    case setTrackingMode(mode: String)
}
