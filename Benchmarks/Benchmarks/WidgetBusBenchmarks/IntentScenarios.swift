import Foundation
import WidgetBusProtocol
import WidgetDomain

/// One intent as intent-handler meets it: the request frame a client sends, and the state of
/// the user it is for.
struct IntentScenario {
    var type: MessageType
    var frame: Data
    var state: WidgetState

    init(_ type: MessageType, _ body: some Encodable & Sendable, to state: WidgetState, codec: WireCodec) {
        self.type = type
        frame = Fixtures.intentFrame(type, body, codec: codec)
        self.state = state
    }

    /// Every widget intent intent-handler serves, each sent to a state it changes (never one
    /// the rules refuse), so that the benchmarks measure the path a real request takes.
    static func all(codec: WireCodec) -> [IntentScenario] {
        let tenXGoals = UserStates.tenXState(UserStates.tenXHistory).goals
        let todaysFocus = UserStates.latestFocuses(UserStates.tenXToday)[1]
        let nutrition = NutritionTotals(calories: 1_530, protein: 96, carbs: 171, fat: 52)
        let goals = NutritionGoalsUpdate(calorieTarget: 2_000, proteinTarget: 150, carbsTarget: 200, fatTarget: 65)
        let measurement = StressMeasurementInput(stressLevel: 62.4, hrvMilliseconds: 38.5, measuredAt: Fixtures.now.addingTimeInterval(-30))
        let scores = JitterScoresUpdate(
            crashRiskScore: 58, focusScore: 64, currentCaffeineLevel: 240,
            lastDrinkTime: Fixtures.now.addingTimeInterval(-300), lastDrinkName: "Cold Brew")
        return [
            IntentScenario(.recordTension, RecordTensionBody(level: 7), to: UserStates.tensionCheckPicker, codec: codec),
            IntentScenario(
                .markInterventionDone, MarkInterventionDoneBody(checkInId: UserStates.openCheckInID),
                to: UserStates.tensionCheckSuggestion, codec: codec),
            IntentScenario(.resetWidget, EmptyBody(), to: UserStates.tensionCheckSuggestion, codec: codec),
            IntentScenario(.quickLogFood, QuickLogFoodBody(foodId: Fixtures.foods[0].id), to: UserStates.diet, codec: codec),
            IntentScenario(
                .configureDietWidget, ConfigureDietWidgetBody(kind: DietWidgetKind.dietProgress.rawValue, showMacros: false, compactMode: true),
                to: UserStates.diet, codec: codec),
            IntentScenario(.updateNutrition, nutrition, to: UserStates.diet, codec: codec),
            IntentScenario(.updateGoals, goals, to: UserStates.diet, codec: codec),
            IntentScenario(.updateRecentFoods, UpdateRecentFoodsBody(foods: Fixtures.foods.reversed()), to: UserStates.diet, codec: codec),
            IntentScenario(.setTrackingMode, SetTrackingModeBody(mode: DietTrackingMode.mindful.rawValue), to: UserStates.diet, codec: codec),
            IntentScenario(.createGoal, CreateGoalBody(title: "Read 24 books"), to: UserStates.tenXHistory, codec: codec),
            IntentScenario(.archiveGoal, GoalReferenceBody(goalId: tenXGoals[1].id), to: UserStates.tenXHistory, codec: codec),
            IntentScenario(.unarchiveGoal, GoalReferenceBody(goalId: tenXGoals[2].id), to: UserStates.tenXHistory, codec: codec),
            IntentScenario(.completeOnboarding, EmptyBody(), to: UserStates.tenXOnboarding, codec: codec),
            IntentScenario(
                .createDayEntry, CreateDayEntryBody(focuses: UserStates.focusDrafts(UserStates.tenXHistory)),
                to: UserStates.tenXHistory, codec: codec),
            IntentScenario(.toggleFocus, ToggleFocusBody(focusId: todaysFocus.id), to: UserStates.tenXToday, codec: codec),
            IntentScenario(.recordStressMeasurement, measurement, to: UserStates.stressMonitor, codec: codec),
            IntentScenario(.updateWidget, EmptyBody(), to: UserStates.stressMonitor, codec: codec),
            IntentScenario(.startDrink, EmptyBody(), to: UserStates.jitterScores, codec: codec),
            IntentScenario(.completeDrink, CompleteDrinkBody(sessionId: UserStates.sippedDrinkID), to: UserStates.jitterSipping, codec: codec),
            IntentScenario(.updateJitterScores, scores, to: UserStates.jitterSipping, codec: codec),
        ]
    }

    /// The intent this scenario's frame carries, decoded as intent-handler decodes it.
    func intent(codec: WireCodec) -> WidgetIntent {
        fixture("the \(type.rawValue) intent") {
            guard case .intent(let intent) = try IntentsRequest.decode(frame, codec: codec).body else {
                throw ProtocolError(.unknownType, "\(type.rawValue) is not a widget intent")
            }
            return intent
        }
    }
}
