import Foundation

/// The Jitter widget's rules: scores → "Add Drink" starts a sipping session → the checkmark
/// completes it, records it for sync and opens the app → scores.
public enum JitterStateMachine {
    public static func reduce(
        _ state: JitterState,
        _ intent: JitterIntent,
        context: inout ReduceContext
    ) throws(RuleViolation) -> Transition<JitterState> {
        switch intent {
        case .startDrink:
            // A second tap (or a retry from a stale widget) keeps the session already timing.
            if state.activeSession(at: context.now) != nil {
                return Transition(state: state)
            }
            var next = state
            next.session = DrinkSession(id: context.makeID(), startTime: context.now)
            return Transition(state: next)

        case .completeDrink(let sessionId):
            guard let session = state.activeSession(at: context.now), session.id == sessionId else {
                if state.session?.id == sessionId { throw .drinkSessionExpired(sessionId) }
                throw .unknownDrinkSession(sessionId)
            }
            var next = state
            next.session = nil
            let drink = FinishedDrink(id: session.id, startedAt: session.startTime, completedAt: context.now)
            return Transition(
                state: next,
                records: [.finishedDrink(drink)],
                openURL: JitterDeepLink.completeDrink(sessionId: session.id))

        case .updateScores(let update):
            let update = try JitterLimits.validated(update, now: context.now)
            var next = state
            next.session = state.activeSession(at: context.now)
            next.scores = JitterScores(
                crashRiskScore: update.crashRiskScore, focusScore: update.focusScore,
                currentCaffeineLevel: update.currentCaffeineLevel, lastDrinkTime: update.lastDrinkTime,
                lastDrinkName: update.lastDrinkName, lastUpdated: context.now)
            return Transition(state: next)
        }
    }
}

extension RuleViolation {
    static func invalidJitterScore(field: String, value: Int) -> RuleViolation {
        RuleViolation(code: "invalid_score", message: "\(field) \(value) is not within \(JitterLimits.scoreRange)")
    }

    static func invalidCaffeineLevel(_ value: Int) -> RuleViolation {
        RuleViolation(
            code: "invalid_caffeine_level",
            message: "currentCaffeineLevel \(value) mg is not within \(JitterLimits.caffeineRange)")
    }

    static func invalidDrinkTime(_ time: Date) -> RuleViolation {
        RuleViolation(
            code: "invalid_drink_time",
            message: "lastDrinkTime \(time.timeIntervalSince1970) (Unix s) is before 2000 or more than 5 minutes in the future")
    }

    static func invalidDrinkName(_ excerpt: String) -> RuleViolation {
        RuleViolation(
            code: "invalid_drink_name",
            message: "lastDrinkName '\(excerpt)' must be 1–\(JitterLimits.maxDrinkNameLength) characters without control characters")
    }

    static func unknownDrinkSession(_ id: String) -> RuleViolation {
        RuleViolation(
            code: "unknown_drink_session",
            message: "drink session '\(JitterLimits.excerpt(id))' is not the one in progress")
    }

    static func drinkSessionExpired(_ id: String) -> RuleViolation {
        RuleViolation(
            code: "drink_session_expired",
            message: "drink session '\(JitterLimits.excerpt(id))' was open over \(Int(DrinkSession.maximumDuration / 3600)) hours and was abandoned")
    }
}
