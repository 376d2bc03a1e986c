import WidgetDomain

extension WidgetIntent {
    /// The widget intent a request of `type` carries, decoding its body; nil for a type that is
    /// not a widget message. Each app's file in this folder maps its own message types.
    init?(type: MessageType, body: any Decoder) throws {
        if let intent = try TensionCheckIntent(type: type, body: body) {
            self = .tensionCheck(intent)
        } else if let intent = try DietIntent(type: type, body: body) {
            self = .diet(intent)
        } else if let intent = try TenXIntent(type: type, body: body) {
            self = .tenX(intent)
        } else if let intent = try StressMonitorIntent(type: type, body: body) {
            self = .stressMonitor(intent)
        } else if let intent = try JitterIntent(type: type, body: body) {
            self = .jitter(intent)
        } else {
            return nil
        }
    }
}

extension MessageType {
    /// Whether this type is sent to intent-handler to change state (what `widgetctl send` is for).
    public var isStateChange: Bool {
        switch self {
        case .recordTension, .markInterventionDone, .resetWidget, .quickLogFood, .configureDietWidget, .updateNutrition,
            .updateGoals, .updateRecentFoods, .setTrackingMode, .createGoal, .archiveGoal, .unarchiveGoal,
            .completeOnboarding, .createDayEntry, .toggleFocus, .recordStressMeasurement, .updateWidget, .startDrink,
            .completeDrink, .updateJitterScores, .setTimeZone, .appForeground:
            true
        default:
            false
        }
    }
}
