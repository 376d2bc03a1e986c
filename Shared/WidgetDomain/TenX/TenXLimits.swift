import Foundation

/// The numbers TenX's rules are built on, plus the bounds this backend adds so one user's state
/// cannot grow without limit.
public enum TenXLimits {
    /// At most three goals are active at once; at least one stays active once created.
    public static let maxActiveGoals = 3
    /// Every day entry has exactly this many focuses.
    public static let dailyFocusCount = 3
    /// Longest goal title, in characters after trimming (a widget line is short).
    public static let maxGoalTitleLength = 80
    /// Longest focus title, in characters after trimming.
    public static let maxFocusTitleLength = 140
    /// Active plus archived goals kept; creating one more evicts the oldest unreferenced archived goal.
    public static let maxStoredGoals = 100
    /// Day entries of the last `retainedDays` days before today (and today) are kept in full;
    /// older ones are folded into ``TenXStreakTail``, which is all the streak still needs of them.
    public static let retainedDays = 30
    /// The widgets' periodic refresh, even when nothing changed: every 30 minutes.
    public static let widgetRefresh: TimeInterval = 30 * 60
}
