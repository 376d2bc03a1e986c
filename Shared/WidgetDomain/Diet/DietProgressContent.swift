/// What the Daily Progress widget shows, small and medium alike.
///
/// `view` says which: `placeholder` before the first sync; `mindful` in recovery mode, where only
/// the ring is drawn and no number is shown; `progress` otherwise, with macros when configured.
public struct DietProgressContent: Codable, Equatable, Sendable {
    public enum View: String, Codable, Sendable {
        case placeholder, progress, mindful
    }

    public var view: View
    /// The local day the numbers are of (the next day on the midnight entry).
    public var dayKey: DayKey?
    /// The ring: calories eaten / target, capped at 1.
    public var calorieProgress: Double?
    public var caloriesRemaining: Double?
    public var nutrition: NutritionTotals?
    public var goals: NutritionGoals?
    /// The macro bars; only when the configuration shows macros.
    public var macros: [MacroProgress]?
    public var configuration: DietWidgetConfiguration

    public init(
        view: View, dayKey: DayKey? = nil, calorieProgress: Double? = nil, caloriesRemaining: Double? = nil,
        nutrition: NutritionTotals? = nil, goals: NutritionGoals? = nil, macros: [MacroProgress]? = nil,
        configuration: DietWidgetConfiguration
    ) {
        self.view = view
        self.dayKey = dayKey
        self.calorieProgress = calorieProgress
        self.caloriesRemaining = caloriesRemaining
        self.nutrition = nutrition
        self.goals = goals
        self.macros = macros
        self.configuration = configuration
    }

    public init(state: DietState, day: DayKey) {
        let configuration = state.configuration(for: .dietProgress)
        guard state.hasData else {
            self.init(view: .placeholder, configuration: configuration)
            return
        }
        let nutrition = state.nutrition(on: day)
        let progress = NutritionProgress.progress(current: nutrition.calories, target: Double(state.goals.calorieTarget))
        if state.trackingMode.isRecoveryMode {
            self.init(view: .mindful, dayKey: day, calorieProgress: progress, configuration: configuration)
            return
        }
        self.init(
            view: .progress, dayKey: day, calorieProgress: progress,
            caloriesRemaining: NutritionProgress.caloriesRemaining(calories: nutrition.calories, target: state.goals.calorieTarget),
            nutrition: nutrition, goals: state.goals,
            macros: configuration.showMacros ? MacroProgress.all(nutrition: nutrition, goals: state.goals) : nil,
            configuration: configuration)
    }
}
