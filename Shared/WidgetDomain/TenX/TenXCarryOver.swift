/// "Continue yesterday": today's setup pre-filled with yesterday's unfinished focuses.
/// Yesterday itself is never edited.
public enum TenXCarryOver {
    /// Drafts for `today`, in yesterday's order, at most ``TenXLimits/dailyFocusCount``.
    ///
    /// Empty when today is already set, yesterday has no entry, or everything was done. A draft
    /// keeps its goal only while that goal is still active, so a pre-filled setup never links an
    /// archived goal (the user picks another one).
    public static func drafts(for today: DayKey, in state: TenXState) -> [TenXFocusDraft] {
        guard state.entry(for: today) == nil, let yesterday = state.entry(for: today.previous) else { return [] }
        let activeIds = Set(state.activeGoals.map(\.id))
        return yesterday.focuses
            .filter { !$0.isCompleted }
            .prefix(TenXLimits.dailyFocusCount)
            .map { focus in
                TenXFocusDraft(
                    title: focus.title,
                    goalId: activeIds.contains(focus.goalId) ? focus.goalId : nil,
                    carriedFromDayKey: yesterday.dayKey.rawValue
                )
            }
    }
}
