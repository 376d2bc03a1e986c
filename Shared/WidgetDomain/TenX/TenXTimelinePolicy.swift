import Foundation

/// When the TenX widgets refresh and what they show, as a pure function of state, time and zone.
///
/// One entry for now; ask again at the next local midnight or in 30 minutes, whichever is
/// first, so the widget turns to the new day's `needsSetup` and never stays stale.
public enum TenXTimelinePolicy {
    public static func timeline(for state: TenXState, kind: TenXWidgetKind, now: Date, calendar: LocalCalendar)
        -> Timeline<TenXWidgetSnapshot>
    {
        let periodic = now.addingTimeInterval(TenXLimits.widgetRefresh)
        let midnight = calendar.nextMidnight(after: now)
        return Timeline(
            entries: [TimelineEntry(date: now, content: snapshot(for: state, kind: kind, now: now, calendar: calendar))],
            policy: .after(min(periodic, midnight))
        )
    }

    /// What `kind` shows at `now`: "today" is `now`'s day in the calendar's zone.
    public static func snapshot(for state: TenXState, kind: TenXWidgetKind, now: Date, calendar: LocalCalendar)
        -> TenXWidgetSnapshot
    {
        let today = calendar.dayKey(for: now)
        let entry = state.entry(for: today)
        let snapshotState: TenXSnapshotState =
            if state.needsOnboarding { .needsOnboarding }
            else if let entry { entry.isFullyComplete ? .complete : .inProgress }
            else { .needsSetup }
        let shownEntry = snapshotState == .needsOnboarding ? nil : entry
        let focuses: [TenXWidgetFocus] =
            kind == .lock ? []
            : (shownEntry?.focuses ?? []).map { focus in
                TenXWidgetFocus(
                    id: focus.id, title: focus.title, goalId: focus.goalId, goalTitle: state.goal(id: focus.goalId)?.title,
                    isCompleted: focus.isCompleted, carriedFromDayKey: focus.carriedFromDayKey)
            }
        return TenXWidgetSnapshot(
            state: snapshotState,
            focuses: focuses,
            streak: state.currentStreak(today: today),
            completedCount: shownEntry?.completedCount ?? 0,
            dayKey: today,
            generatedAt: now,
            deepLink: snapshotState.deepLink
        )
    }
}
