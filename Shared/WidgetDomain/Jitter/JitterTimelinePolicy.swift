import Foundation

/// When the Jitter widget refreshes and what each entry shows, as a pure function of state and
/// time.
public enum JitterTimelinePolicy {
    /// Timer entries while sipping: every 10 s for 30 minutes.
    public static let sippingEntryCount = 180
    public static let sippingInterval: TimeInterval = 10
    /// Score entries otherwise: every 5 minutes for an hour.
    public static let scoresEntryCount = 12
    public static let scoresInterval: TimeInterval = 5 * 60

    /// While a session is active: 180 timer entries 10 s apart from `now`, each with the elapsed
    /// time. Otherwise: 12 score entries 5 minutes apart from `now`. Reload at the end.
    ///
    /// A session that expires within the 30 minutes ends its timer entries there and gets one
    /// scores entry at `expiresAt`, so the widget never shows a timer for an abandoned session.
    public static func timeline(for state: JitterState, now: Date) -> Timeline<JitterWidgetContent> {
        guard let session = state.activeSession(at: now) else {
            let content = JitterWidgetContent(scores: state.scores)
            return Timeline(
                entries: (0..<scoresEntryCount).map { index in
                    TimelineEntry(date: now.addingTimeInterval(Double(index) * scoresInterval), content: content)
                },
                policy: .atEnd)
        }
        var entries: [TimelineEntry<JitterWidgetContent>] = []
        for index in 0..<sippingEntryCount {
            let date = now.addingTimeInterval(Double(index) * sippingInterval)
            guard session.isActive(at: date) else {
                entries.append(TimelineEntry(date: session.expiresAt, content: JitterWidgetContent(scores: state.scores)))
                break
            }
            entries.append(TimelineEntry(date: date, content: JitterWidgetContent(scores: state.scores, session: session, at: date)))
        }
        return Timeline(entries: entries, policy: .atEnd)
    }
}
