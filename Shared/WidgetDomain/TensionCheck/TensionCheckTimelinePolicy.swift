import Foundation

/// When the Tension Check widget refreshes and what it shows, as a pure function of state and
/// time.
public enum TensionCheckTimelinePolicy {
    /// Safety refresh while a suggestion waits for the user.
    public static let suggestionRefresh: TimeInterval = 5 * 60
    /// Keep-alive refresh of the idle picker.
    public static let pickerRefresh: TimeInterval = 30 * 60

    public static func timeline(for state: TensionCheckState, now: Date) -> Timeline<TensionCheckPhase> {
        switch state.phase(at: now) {
        case .completed(_, _, let resetAt) :
            let shown = state.phase
            return Timeline(
                entries: [
                    TimelineEntry(date: now, content: shown),
                    TimelineEntry(date: resetAt, content: .picker),
                ],
                policy: .after(resetAt)
            )
        case let phase:
            let refresh = phase == .picker ? pickerRefresh : suggestionRefresh
            return Timeline(
                entries: [TimelineEntry(date: now, content: phase)],
                policy: .after(now.addingTimeInterval(refresh))
            )
        }
    }
}
