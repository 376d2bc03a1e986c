/// What the Lock Screen widget shows: a gauge of calorie progress, and calories remaining as text
/// for the rectangular and inline families.
///
/// The texts are built here, so every client words them alike: "1234 cal left" /
/// "1234 calories remaining" (whole calories, truncated as `Int(_:)` does), "Open app to sync" /
/// "Sync required" before the first sync, and "Mindful mode" instead of numbers in recovery mode.
public struct DietLockScreenContent: Codable, Equatable, Sendable {
    public enum View: String, Codable, Sendable {
        case syncRequired, calories, mindful
    }

    public var view: View
    public var dayKey: DayKey?
    /// The circular / linear gauge; 0 (empty) before the first sync.
    public var calorieProgress: Double
    public var caloriesRemaining: Double?
    public var rectangularText: String
    public var inlineText: String
    public var configuration: DietWidgetConfiguration

    public init(
        view: View, dayKey: DayKey? = nil, calorieProgress: Double, caloriesRemaining: Double? = nil,
        rectangularText: String, inlineText: String, configuration: DietWidgetConfiguration
    ) {
        self.view = view
        self.dayKey = dayKey
        self.calorieProgress = calorieProgress
        self.caloriesRemaining = caloriesRemaining
        self.rectangularText = rectangularText
        self.inlineText = inlineText
        self.configuration = configuration
    }

    public init(state: DietState, day: DayKey) {
        let configuration = state.configuration(for: .lockScreen)
        guard state.hasData else {
            self.init(
                view: .syncRequired, calorieProgress: 0, rectangularText: "Open app to sync", inlineText: "Sync required",
                configuration: configuration)
            return
        }
        let nutrition = state.nutrition(on: day)
        let progress = NutritionProgress.progress(current: nutrition.calories, target: Double(state.goals.calorieTarget))
        if state.trackingMode.isRecoveryMode {
            self.init(
                view: .mindful, dayKey: day, calorieProgress: progress, rectangularText: "Mindful mode",
                inlineText: "Mindful mode", configuration: configuration)
            return
        }
        let remaining = NutritionProgress.caloriesRemaining(calories: nutrition.calories, target: state.goals.calorieTarget)
        self.init(
            view: .calories, dayKey: day, calorieProgress: progress, caloriesRemaining: remaining,
            rectangularText: "\(Int(remaining)) cal left", inlineText: "\(Int(remaining)) calories remaining",
            configuration: configuration)
    }
}
