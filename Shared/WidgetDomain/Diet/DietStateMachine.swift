import Foundation

/// The Diet widgets' rules: the app syncs totals, goals, favourites and mode; a quick-log tap
/// eats a favourite's default portion; every local day starts from zero at the user's midnight.
public enum DietStateMachine {
    public static func reduce(
        _ state: DietState,
        _ intent: DietIntent,
        context: inout ReduceContext
    ) throws(RuleViolation) -> Transition<DietState> {
        let today = LocalCalendar(timeZone: context.timeZone).dayKey(for: context.now)
        // Whatever the message, it lands on today's totals: a new local day first resets them.
        var next = state.rolledOver(to: today)
        switch intent {
        case .quickLogFood(let foodId):
            return try quickLog(next, foodId: foodId, today: today, context: &context)

        case .configureWidget(let rawKind, let showMacros, let compactMode):
            guard let kind = DietWidgetKind(rawValue: rawKind) else { throw .unknownDietWidgetKind(rawKind) }
            next.configurations[kind] = DietWidgetConfiguration(
                showMacros: showMacros ?? DietWidgetConfiguration.default.showMacros,
                compactMode: compactMode ?? DietWidgetConfiguration.default.compactMode)

        case .updateNutrition(let totals):
            try DietLimits.validate(totals)
            next.nutrition = totals
            next.dayKey = today
            next.lastUpdated = context.now

        case .updateGoals(let update):
            let goals = update.goals
            try DietLimits.validate(goals)
            next.goals = goals
            if !next.hasData {
                // Goals before any nutrition: the day starts with nothing eaten yet.
                next.nutrition = .zero
                next.dayKey = today
            }
            next.lastUpdated = context.now

        case .updateRecentFoods(let foods):
            next.recentFoods = Array(try DietLimits.validated(foods).prefix(DietLimits.keptRecentFoods))

        case .setTrackingMode(let rawMode):
            guard let mode = DietTrackingMode(rawValue: rawMode) else { throw .invalidTrackingMode(rawMode) }
            next.trackingMode = mode
        }
        return Transition(state: next)
    }

    /// Eats the favourite's default portion today and records it for sync.
    ///
    /// The widget state counts the tap at once, without waiting for the app to log it and
    /// re-sync, so the widget is right before the app next opens; the pending ``FoodLogEntry``
    /// carries it to the backend.
    private static func quickLog(
        _ state: DietState,
        foodId: String,
        today: DayKey,
        context: inout ReduceContext
    ) throws(RuleViolation) -> Transition<DietState> {
        try DietLimits.validateFoodID(foodId)
        // Without a sync the widget shows "Add favorites" and no button: today's totals are unknown.
        guard state.hasData else { throw .dietNotSynced }
        guard let food = state.recentFoods.first(where: { $0.id == foodId }) else { throw .unknownFood(foodId) }
        let portion = food.portion
        let totals = state.nutrition + portion
        guard DietLimits.withinDailyBounds(totals) else { throw .dailyTotalExceeded(food.name) }

        let entry = FoodLogEntry(
            id: context.makeID(), foodId: food.id, name: food.name, quantity: food.defaultQuantity, unit: food.unit,
            calories: portion.calories, protein: portion.protein, carbs: portion.carbs, fat: portion.fat,
            dayKey: today, loggedAt: context.now)
        var next = state
        next.nutrition = totals
        next.lastUpdated = context.now
        return Transition(state: next, records: [.foodLog(entry)])
    }
}

extension RuleViolation {
    static func invalidNutrition(field: String, value: Double, limit: Double) -> RuleViolation {
        RuleViolation(code: "invalid_nutrition", message: "\(field) \(value) is not a number within 0…\(limit)")
    }

    static func invalidNutritionGoal(field: String, value: Double, limit: Double) -> RuleViolation {
        RuleViolation(code: "invalid_nutrition_goal", message: "\(field) \(value) is not a number within 0…\(limit)")
    }

    static func invalidFoodID(excerpt: String) -> RuleViolation {
        RuleViolation(
            code: "invalid_food_id",
            message: "food id '\(excerpt)' must be 1–\(DietLimits.maxFoodIDLength) printable ASCII characters without spaces")
    }

    static func invalidFoodName(index: Int, excerpt: String) -> RuleViolation {
        RuleViolation(
            code: "invalid_food_name",
            message: "foods[\(index)].name '\(excerpt)' must be 1–\(DietLimits.maxFoodNameLength) characters without control characters")
    }

    static func invalidFoodUnit(index: Int, excerpt: String) -> RuleViolation {
        RuleViolation(
            code: "invalid_food_unit",
            message: "foods[\(index)].unit '\(excerpt)' must be 1–\(DietLimits.maxUnitLength) letters, digits, spaces, '.' or '-'")
    }

    static func invalidFoodQuantity(index: Int, value: Double) -> RuleViolation {
        RuleViolation(
            code: "invalid_food_quantity",
            message: "foods[\(index)].defaultQuantity \(value) must be above 0 and at most \(DietLimits.maxQuantity)")
    }

    static func invalidFoodNutrition(index: Int, detail: String) -> RuleViolation {
        RuleViolation(code: "invalid_food_nutrition", message: "foods[\(index)]: \(detail)")
    }

    static func duplicateFoodID(_ id: String) -> RuleViolation {
        RuleViolation(code: "duplicate_food_id", message: "food id '\(DietLimits.excerpt(id))' appears more than once")
    }

    static func tooManyFoods(_ count: Int) -> RuleViolation {
        RuleViolation(
            code: "too_many_foods",
            message: "\(count) foods in one update; at most \(DietLimits.maxFoodsPerUpdate) (the first \(DietLimits.keptRecentFoods) are kept)")
    }

    static func invalidTrackingMode(_ mode: String) -> RuleViolation {
        RuleViolation(
            code: "invalid_tracking_mode",
            message: "tracking mode '\(DietLimits.excerpt(mode))' is not one of \(DietTrackingMode.allCases.map(\.rawValue))")
    }

    static func unknownDietWidgetKind(_ kind: String) -> RuleViolation {
        RuleViolation(
            code: "unknown_widget_kind",
            message: "'\(DietLimits.excerpt(kind))' is not one of \(DietWidgetKind.allCases.map(\.rawValue))")
    }

    static let dietNotSynced = RuleViolation(
        code: "not_synced", message: "the app has not synced nutrition yet; open the app to sync")

    static func unknownFood(_ id: String) -> RuleViolation {
        RuleViolation(code: "unknown_food", message: "food '\(DietLimits.excerpt(id))' is not among the recent foods")
    }

    static func dailyTotalExceeded(_ name: String) -> RuleViolation {
        RuleViolation(
            code: "daily_total_exceeded",
            message: "logging \(DietLimits.excerpt(name)) would pass the daily bound of \(DietLimits.maxDailyCalories) kcal or \(DietLimits.maxDailyMacroGrams) g of a macro")
    }
}
