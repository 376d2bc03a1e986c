import Foundation

/// The Tension Check widget's rules: picker → suggestion → completed → picker.
public enum TensionCheckStateMachine {
    /// How long the "Logged ✓" view stays before the picker returns.
    public static let completedDisplayDuration: TimeInterval = 5

    public static func reduce(
        _ state: TensionCheckState,
        _ intent: TensionCheckIntent,
        context: inout ReduceContext
    ) throws(RuleViolation) -> Transition<TensionCheckState> {
        switch intent {
        case .recordTension(let rawLevel):
            return try recordTension(state, rawLevel: rawLevel, context: &context)
        case .markInterventionDone(let checkInId):
            return try markInterventionDone(state, checkInId: checkInId, context: context)
        case .resetWidget:
            var next = state
            next.phase = .picker
            return Transition(state: next)
        }
    }

    private static func recordTension(
        _ state: TensionCheckState,
        rawLevel: Int,
        context: inout ReduceContext
    ) throws(RuleViolation) -> Transition<TensionCheckState> {
        guard let level = TensionLevel(rawValue: rawLevel) else {
            throw .invalidTensionLevel(rawLevel)
        }
        var next = state
        let checkIn: StressCheckIn
        if level.triggersSuggestion {
            let suggestion = InterventionSuggestion.pick(excluding: state.lastSuggestionId, using: &context.random)
            checkIn = StressCheckIn(
                id: context.makeID(),
                tensionLevel: level.rawValue,
                suggestedInterventionId: suggestion.interventionId,
                createdAt: context.now
            )
            next.lastSuggestionId = suggestion.interventionId
            next.phase = .suggestion(intervention: suggestion, checkIn: checkIn)
        } else {
            checkIn = StressCheckIn(
                id: context.makeID(),
                tensionLevel: level.rawValue,
                suggestedInterventionId: nil,
                createdAt: context.now
            )
            next.phase = .picker
        }
        return Transition(state: next, records: [.tensionCheckIn(checkIn)])
    }

    /// Only the check-in the suggestion view offers can be marked done (the button exists nowhere
    /// else); a second tap on the same check-in is answered with the state as it is.
    private static func markInterventionDone(
        _ state: TensionCheckState,
        checkInId: String,
        context: ReduceContext
    ) throws(RuleViolation) -> Transition<TensionCheckState> {
        switch state.phase {
        case .suggestion(let intervention, var checkIn) where checkIn.id == checkInId:
            checkIn.interventionCompleted = true
            var next = state
            next.phase = .completed(
                interventionName: intervention.name,
                checkInId: checkIn.id,
                resetAt: context.now.addingTimeInterval(completedDisplayDuration)
            )
            return Transition(state: next, records: [.tensionCheckIn(checkIn)])
        case .completed(_, let completedId, _) where completedId == checkInId:
            return Transition(state: state)
        default:
            throw .noOpenSuggestion(checkInId: checkInId)
        }
    }
}

extension RuleViolation {
    static func invalidTensionLevel(_ level: Int) -> RuleViolation {
        RuleViolation(
            code: "invalid_level",
            message: "tension level \(level) is not one of \(TensionLevel.allCases.map(\.rawValue))")
    }

    static func noOpenSuggestion(checkInId: String) -> RuleViolation {
        RuleViolation(
            code: "unknown_check_in",
            message: "check-in \(checkInId) has no open intervention suggestion")
    }
}
