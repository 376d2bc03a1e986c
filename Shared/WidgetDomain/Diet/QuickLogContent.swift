/// What the Quick Log widget shows: the first four favourites as buttons, or the "Add favorites
/// to quick log" empty state when there are none or the app has never synced.
public struct QuickLogContent: Codable, Equatable, Sendable {
    public enum View: String, Codable, Sendable {
        case empty, foods
    }

    /// The empty-state text, worded alike on every client.
    public static let emptyMessage = "Add favorites to quick log"

    public var view: View
    public var dayKey: DayKey?
    public var foods: [QuickLogButton]?
    public var message: String?
    public var configuration: DietWidgetConfiguration

    public init(
        view: View, dayKey: DayKey? = nil, foods: [QuickLogButton]? = nil, message: String? = nil,
        configuration: DietWidgetConfiguration
    ) {
        self.view = view
        self.dayKey = dayKey
        self.foods = foods
        self.message = message
        self.configuration = configuration
    }

    public init(state: DietState, day: DayKey) {
        let configuration = state.configuration(for: .quickLog)
        guard state.hasData, !state.recentFoods.isEmpty else {
            self.init(view: .empty, dayKey: state.hasData ? day : nil, message: Self.emptyMessage, configuration: configuration)
            return
        }
        let buttons = state.recentFoods.prefix(DietLimits.shownQuickLogFoods).map {
            QuickLogButton(food: $0, showsNumbers: !state.trackingMode.isRecoveryMode)
        }
        self.init(view: .foods, dayKey: day, foods: Array(buttons), configuration: configuration)
    }
}
