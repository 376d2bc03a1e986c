/// Keeps a user's day entries bounded without changing any answer the rules give.
///
/// Entries of the last ``TenXLimits/retainedDays`` days before today (and today and later) are
/// kept in full: carry-over needs yesterday, and a zone change can move "today" back a day or
/// two. Older days can no longer be created or toggled, so the only thing they still affect —
/// the length of the streak reaching back into them — is folded into ``TenXStreakTail``.
public enum TenXRetention {
    /// The oldest day kept in full when today is `today`.
    public static func oldestRetainedDay(today: DayKey) -> DayKey {
        today.adding(days: -TenXLimits.retainedDays)
    }

    /// `state` with the entries older than the retention window folded into its streak tail.
    public static func apply(to state: TenXState, today: DayKey) -> TenXState {
        let cutoff = oldestRetainedDay(today: today)
        let removed = state.dayEntries.filter { $0.dayKey < cutoff }
        guard !removed.isEmpty || state.streakTail != nil else { return state }
        let through = cutoff.previous
        // The tail only moves forward; a "today" that went back (zone change) folds nothing.
        if let tail = state.streakTail, tail.throughDayKey >= through { return state }
        var next = state
        next.streakTail = TenXStreakTail(
            throughDayKey: through,
            length: TenXStreakEngine.runLength(endingAt: through, entries: removed, tail: state.streakTail)
        )
        next.dayEntries.removeAll { $0.dayKey < cutoff }
        return next
    }

    /// `goals` with room for one more: when full, the archived goal archived longest ago that no
    /// kept focus links is dropped. Nil when every archived goal is still linked.
    public static func makingRoomForGoal(in state: TenXState) -> [TenXGoal]? {
        guard state.goals.count >= TenXLimits.maxStoredGoals else { return state.goals }
        let linked = Set(state.dayEntries.flatMap { $0.focuses.map(\.goalId) })
        let evictable = state.goals.enumerated()
            .filter { $0.element.isArchived && !linked.contains($0.element.id) }
            .min { ($0.element.archivedAt!, $0.offset) < ($1.element.archivedAt!, $1.offset) }
        guard let evictable else { return nil }
        var goals = state.goals
        goals.remove(at: evictable.offset)
        return goals
    }
}
