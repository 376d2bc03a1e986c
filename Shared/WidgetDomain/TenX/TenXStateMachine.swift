import Foundation

/// TenX's invariants: 1–3 active goals, exactly three goal-linked focuses per local day, one
/// entry per `dayKey`, and only today's focuses change.
public enum TenXStateMachine {
    public static func reduce(
        _ state: TenXState,
        _ intent: TenXIntent,
        context: inout ReduceContext
    ) throws(RuleViolation) -> Transition<TenXState> {
        switch intent {
        case .createGoal(let title):
            return try createGoal(state, title: title, context: &context)
        case .archiveGoal(let goalId):
            return try archiveGoal(state, goalId: goalId, context: context)
        case .unarchiveGoal(let goalId):
            return try unarchiveGoal(state, goalId: goalId)
        case .completeOnboarding:
            var next = state
            next.hasCompletedOnboarding = true
            return Transition(state: next)
        case .createDayEntry(let focuses):
            return try createDayEntry(state, drafts: focuses, context: &context)
        case .toggleFocus(let focusId):
            return try toggleFocus(state, focusId: focusId, context: context)
        }
    }

    // MARK: Goals

    private static func createGoal(_ state: TenXState, title: String, context: inout ReduceContext)
        throws(RuleViolation) -> Transition<TenXState>
    {
        let trimmed = title.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw .emptyGoalTitle }
        guard !hasControlCharacters(trimmed) else { throw .invalidGoalTitle }
        guard trimmed.count <= TenXLimits.maxGoalTitleLength else { throw .goalTitleTooLong(trimmed.count) }
        guard state.activeGoals.count < TenXLimits.maxActiveGoals else { throw .tooManyActiveGoals }
        guard let goals = TenXRetention.makingRoomForGoal(in: state) else { throw .goalStorageFull }
        var next = state
        next.goals = goals
        next.goals.append(TenXGoal(id: context.makeID(), title: trimmed, createdAt: context.now))
        return Transition(state: next)
    }

    /// Archiving an archived goal changes nothing (its first `archivedAt` stays).
    private static func archiveGoal(_ state: TenXState, goalId: String, context: ReduceContext)
        throws(RuleViolation) -> Transition<TenXState>
    {
        guard let index = state.goals.firstIndex(where: { $0.id == goalId }) else { throw .unknownGoal(goalId) }
        guard !state.goals[index].isArchived else { return Transition(state: state) }
        guard state.activeGoals.count > 1 else { throw .lastActiveGoal }
        var next = state
        next.goals[index].archivedAt = context.now
        return Transition(state: next)
    }

    /// Unarchiving an active goal changes nothing.
    private static func unarchiveGoal(_ state: TenXState, goalId: String) throws(RuleViolation)
        -> Transition<TenXState>
    {
        guard let index = state.goals.firstIndex(where: { $0.id == goalId }) else { throw .unknownGoal(goalId) }
        guard state.goals[index].isArchived else { return Transition(state: state) }
        guard state.activeGoals.count < TenXLimits.maxActiveGoals else { throw .tooManyActiveGoals }
        var next = state
        next.goals[index].archivedAt = nil
        return Transition(state: next)
    }

    // MARK: Day entries

    /// Creates today's entry (today in the user's zone at `context.now`). Every draft is checked
    /// before any id is drawn, always in this order: count, day already set, then per focus.
    private static func createDayEntry(_ state: TenXState, drafts: [TenXFocusDraft], context: inout ReduceContext)
        throws(RuleViolation) -> Transition<TenXState>
    {
        guard drafts.count == TenXLimits.dailyFocusCount else { throw .wrongFocusCount(drafts.count) }
        let today = LocalCalendar(timeZone: context.timeZone).dayKey(for: context.now)
        if let tail = state.streakTail, today <= tail.throughDayKey { throw .focusDayClosed(today) }
        guard state.entry(for: today) == nil else { throw .focusDayAlreadySet(today) }

        var validated: [(title: String, goalId: String, carriedFrom: DayKey?)] = []
        for (index, draft) in drafts.enumerated() {
            let position = index + 1
            let title = draft.title.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !title.isEmpty else { throw .emptyFocusTitle(position: position) }
            guard !hasControlCharacters(title) else { throw .invalidFocusTitle(position: position) }
            guard title.count <= TenXLimits.maxFocusTitleLength else {
                throw .focusTitleTooLong(position: position, length: title.count)
            }
            guard let goalId = draft.goalId, !goalId.isEmpty else { throw .missingGoalLink(position: position) }
            guard let goal = state.goal(id: goalId) else { throw .unknownGoal(goalId) }
            guard !goal.isArchived else { throw .goalNotActive(goalId) }
            var carriedFrom: DayKey?
            if let raw = draft.carriedFromDayKey {
                guard let day = DayKey(rawValue: raw), day < today else {
                    throw .invalidCarriedFrom(position: position, value: raw, today: today)
                }
                carriedFrom = day
            }
            validated.append((title, goalId, carriedFrom))
        }

        let focuses = validated.enumerated().map { index, draft in
            TenXFocus(
                id: context.makeID(), title: draft.title, goalId: draft.goalId, sortOrder: index,
                carriedFromDayKey: draft.carriedFrom, createdAt: context.now)
        }
        var next = state
        next.dayEntries.append(TenXDayEntry(dayKey: today, createdAt: context.now, focuses: focuses))
        next.dayEntries.sort { $0.dayKey < $1.dayKey }
        return Transition(state: TenXRetention.apply(to: next, today: today))
    }

    /// Flips one of today's focuses; `completedAt` is set on complete and cleared on un-complete.
    private static func toggleFocus(_ state: TenXState, focusId: String, context: ReduceContext)
        throws(RuleViolation) -> Transition<TenXState>
    {
        let today = LocalCalendar(timeZone: context.timeZone).dayKey(for: context.now)
        guard let entryIndex = state.dayEntries.firstIndex(where: { $0.dayKey == today }),
            let focusIndex = state.dayEntries[entryIndex].focuses.firstIndex(where: { $0.id == focusId })
        else {
            if let other = state.dayEntries.first(where: { $0.focuses.contains { $0.id == focusId } }) {
                throw .focusNotToday(focusId: focusId, dayKey: other.dayKey, today: today)
            }
            throw .unknownFocus(focusId)
        }
        var next = state
        let completed = next.dayEntries[entryIndex].focuses[focusIndex].isCompleted
        next.dayEntries[entryIndex].focuses[focusIndex].setCompleted(!completed, now: context.now)
        return Transition(state: next)
    }

    /// A title is one line of a widget: line breaks, tabs and other control characters inside
    /// it are refused rather than silently rewritten.
    private static func hasControlCharacters(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }
}
