import Foundation

/// Durable state of one user's TenX app: goals, day entries, the onboarding flag, and the streak
/// of entries retention removed.
public struct TenXState: Codable, Equatable, Sendable {
    /// Active and archived goals, in creation order.
    public var goals: [TenXGoal]
    /// At most one entry per `dayKey`, ascending by `dayKey`; see ``TenXRetention`` for how
    /// far back they go.
    public var dayEntries: [TenXDayEntry]
    public var hasCompletedOnboarding: Bool
    /// The streak of day entries retention removed; nil until retention first removes one.
    public var streakTail: TenXStreakTail?

    public init(
        goals: [TenXGoal] = [], dayEntries: [TenXDayEntry] = [], hasCompletedOnboarding: Bool = false,
        streakTail: TenXStreakTail? = nil
    ) {
        self.goals = goals
        self.dayEntries = dayEntries.sorted { $0.dayKey < $1.dayKey }
        self.hasCompletedOnboarding = hasCompletedOnboarding
        self.streakTail = streakTail
    }

    public static let initial = TenXState()

    /// Active goals in creation order.
    public var activeGoals: [TenXGoal] { goals.filter { !$0.isArchived } }

    public func goal(id: String) -> TenXGoal? { goals.first { $0.id == id } }

    /// The entry of local day `dayKey`, or nil if the user has not set that day.
    public func entry(for dayKey: DayKey) -> TenXDayEntry? { dayEntries.first { $0.dayKey == dayKey } }

    /// The app's root gating: onboarding shows until the flag is set and a goal is active.
    public var needsOnboarding: Bool { !hasCompletedOnboarding || activeGoals.isEmpty }

    /// The streak as of `today` (``TenXStreakEngine`` over the retained entries and the tail).
    public func currentStreak(today: DayKey) -> Int {
        TenXStreakEngine.currentStreak(todayKey: today, entries: dayEntries, tail: streakTail)
    }
}
