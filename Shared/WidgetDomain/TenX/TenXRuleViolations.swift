/// TenX's refusals, one stable code each (documented in docs/WIDGETS.md).
extension RuleViolation {
    static let emptyGoalTitle = RuleViolation(code: "empty_goal_title", message: "Goal title is empty.")

    static let invalidGoalTitle = RuleViolation(
        code: "invalid_goal_title", message: "Goal title contains a line break or another control character.")

    static func goalTitleTooLong(_ length: Int) -> RuleViolation {
        RuleViolation(
            code: "goal_title_too_long",
            message: "Goal title has \(length) characters; at most \(TenXLimits.maxGoalTitleLength) are allowed.")
    }

    static let tooManyActiveGoals = RuleViolation(
        code: "too_many_active_goals",
        message: "You already have \(TenXLimits.maxActiveGoals) active goals.")

    static let goalStorageFull = RuleViolation(
        code: "goal_storage_full",
        message: "\(TenXLimits.maxStoredGoals) goals are stored and every archived one is still linked to a recent focus.")

    static let lastActiveGoal = RuleViolation(code: "last_active_goal", message: "You need at least 1 active goal.")

    static func unknownGoal(_ goalId: String) -> RuleViolation {
        RuleViolation(code: "unknown_goal", message: "No goal has id \(excerpt(goalId)).")
    }

    static func goalNotActive(_ goalId: String) -> RuleViolation {
        RuleViolation(code: "goal_not_active", message: "Selected goal \(excerpt(goalId)) is not active.")
    }

    static func wrongFocusCount(_ count: Int) -> RuleViolation {
        RuleViolation(
            code: "wrong_focus_count",
            message: "You must set exactly \(TenXLimits.dailyFocusCount) focuses, not \(count).")
    }

    static func focusDayAlreadySet(_ day: DayKey) -> RuleViolation {
        RuleViolation(code: "day_already_set", message: "Today is already set (\(day)).")
    }

    static func focusDayClosed(_ day: DayKey) -> RuleViolation {
        RuleViolation(code: "day_closed", message: "Day \(day) is older than the kept history and can no longer be set.")
    }

    static func emptyFocusTitle(position: Int) -> RuleViolation {
        RuleViolation(code: "empty_focus_title", message: "Focus \(position) is empty.")
    }

    static func invalidFocusTitle(position: Int) -> RuleViolation {
        RuleViolation(
            code: "invalid_focus_title",
            message: "Focus \(position) contains a line break or another control character.")
    }

    static func focusTitleTooLong(position: Int, length: Int) -> RuleViolation {
        RuleViolation(
            code: "focus_title_too_long",
            message: "Focus \(position) has \(length) characters; at most \(TenXLimits.maxFocusTitleLength) are allowed.")
    }

    static func missingGoalLink(position: Int) -> RuleViolation {
        RuleViolation(code: "missing_goal_link", message: "Focus \(position) must be linked to a goal.")
    }

    static func invalidCarriedFrom(position: Int, value: String, today: DayKey) -> RuleViolation {
        RuleViolation(
            code: "invalid_carried_from",
            message: "Focus \(position) carriedFromDayKey \"\(excerpt(value))\" is not a yyyy-MM-dd day before \(today).")
    }

    static func unknownFocus(_ focusId: String) -> RuleViolation {
        RuleViolation(code: "unknown_focus", message: "No focus has id \(excerpt(focusId)).")
    }

    static func focusNotToday(focusId: String, dayKey: DayKey, today: DayKey) -> RuleViolation {
        RuleViolation(
            code: "focus_not_today",
            message: "Focus \(excerpt(focusId)) belongs to \(dayKey), not today (\(today)); past days are never edited.")
    }
}

/// Client strings are quoted at most 40 characters long, so an oversized id is not echoed back.
private func excerpt(_ text: String) -> String {
    text.count > 40 ? String(text.prefix(40)) + "…" : text
}
