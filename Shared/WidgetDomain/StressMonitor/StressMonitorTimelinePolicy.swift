import Foundation

/// When the Stress Monitor widget refreshes and what it shows, as pure functions of state and
/// time.
public enum StressMonitorTimelinePolicy {
    /// One entry for now; ask again in 15 minutes (a measurement or `UpdateWidgetIntent`
    /// changes the state, which reloads sooner).
    public static func timeline(for state: StressMonitorState, now: Date) -> Timeline<StressMonitorEntry> {
        Timeline(
            entries: [TimelineEntry(date: now, content: StressMonitorEntry(state: state))],
            policy: .after(now.addingTimeInterval(StressMonitorLimits.widgetRefresh))
        )
    }

    /// The placeholder shown before the first entry: 45, moderate, with the no-history HRV
    /// defaults.
    public static func placeholder(at date: Date) -> TimelineEntry<StressMonitorEntry> {
        TimelineEntry(
            date: date,
            content: StressMonitorEntry(
                stressLevel: 45, hrvHistory: [], hrvAverage: StressMonitorLimits.defaultHRVAverage,
                hrvMax: StressMonitorLimits.defaultHRVMax, trend: nil, measuredAt: nil)
        )
    }

    /// The sample for the widget gallery: fixed values, the average given as 54 rather than
    /// computed (54.29), measured two minutes before `date` ("Updated 2m ago").
    public static func preview(at date: Date) -> TimelineEntry<StressMonitorEntry> {
        let history: [Double] = [45, 52, 48, 60, 55, 62, 58]
        return TimelineEntry(
            date: date,
            content: StressMonitorEntry(
                stressLevel: 45, hrvHistory: history, hrvAverage: 54, hrvMax: 62,
                trend: HRVTrend(latest: 58, average: 54), measuredAt: date.addingTimeInterval(-120))
        )
    }
}
