import Foundation

/// When the Diet widgets refresh and what each entry shows, as a pure function of state, time and
/// the user's zone.
public enum DietTimelinePolicy {
    /// Local hours with an hourly refresh entry: from 06:00 up to, not including, 22:00.
    public static let activeHours = 6..<22
    /// Distance of the hourly entry: one hour of elapsed time, as `Calendar.date(byAdding: .hour)`.
    public static let hourlyRefresh: TimeInterval = 3600

    /// An entry now; one at the user's next local midnight showing the new day's reset totals;
    /// and, during active hours, one an hour from now. Reload at the end.
    ///
    /// Each entry shows the state as of its own local day, so a state last written yesterday
    /// already shows zeros now, and the midnight entry shows the reset day's zeros rather than
    /// the placeholder: a new day is not a missing sync.
    public static func timeline(
        for state: DietState,
        kind: DietWidgetKind,
        now: Date,
        calendar: LocalCalendar
    ) -> Timeline<DietWidgetContent> {
        var dates = [now, calendar.nextMidnight(after: now)]
        if activeHours.contains(calendar.hour(of: now)) {
            dates.append(now.addingTimeInterval(hourlyRefresh))
        }
        dates.sort()
        return Timeline(
            entries: dates.map { date in
                TimelineEntry(date: date, content: DietWidgetContent(state: state, kind: kind, day: calendar.dayKey(for: date)))
            },
            policy: .atEnd)
    }
}
