import Foundation

/// Durable state of one user's Diet widgets: the synced totals, goals, favourites and tracking
/// mode, plus the per-kind configuration and the local day the totals belong to.
///
/// While `dayKey` is nil the app has never sent nutrition or goals, so no number would be true
/// and the widgets show a placeholder.
public struct DietState: Codable, Equatable, Sendable {
    /// When the numbers last changed (an `UpdateNutrition`, `UpdateGoals` or quick log); nil before any.
    public var lastUpdated: Date?
    /// The user's local day `nutrition` was eaten on; nil until the app first syncs.
    public var dayKey: DayKey?
    public var nutrition: NutritionTotals
    public var goals: NutritionGoals
    /// The app's favourites, at most ``DietLimits/keptRecentFoods``, in the app's order.
    public var recentFoods: [QuickLogFood]
    public var trackingMode: DietTrackingMode
    /// Configured kinds only; the others use ``DietWidgetConfiguration/default``.
    public var configurations: [DietWidgetKind: DietWidgetConfiguration]

    public init(
        lastUpdated: Date? = nil,
        dayKey: DayKey? = nil,
        nutrition: NutritionTotals = .zero,
        goals: NutritionGoals = .default,
        recentFoods: [QuickLogFood] = [],
        trackingMode: DietTrackingMode = .full,
        configurations: [DietWidgetKind: DietWidgetConfiguration] = [:]
    ) {
        self.lastUpdated = lastUpdated
        self.dayKey = dayKey
        self.nutrition = nutrition
        self.goals = goals
        self.recentFoods = recentFoods
        self.trackingMode = trackingMode
        self.configurations = configurations
    }

    /// Before the first message: nothing eaten, default goals, no favourites, full tracking, and
    /// not yet synced.
    public static let initial = DietState()

    /// Whether the app has synced numbers at least once (otherwise the widgets show the sync
    /// placeholder, "Open app to sync", "Sync required").
    public var hasData: Bool { dayKey != nil }

    public func configuration(for kind: DietWidgetKind) -> DietWidgetConfiguration {
        configurations[kind] ?? .default
    }

    /// What was eaten on local `day`: the stored totals if they are that day's, else nothing.
    ///
    /// A derived reader may not write, so the midnight reset is computed here rather than stored;
    /// the reducer stores it on the next message (``rolledOver(to:)``).
    public func nutrition(on day: DayKey) -> NutritionTotals {
        dayKey == day ? nutrition : .zero
    }

    /// This state as of local `day`: totals of any other day are reset to zero.
    ///
    /// "Other" includes an earlier day, which a zone change westwards can produce: the widget
    /// state holds one day only, the one the user is living now.
    public func rolledOver(to day: DayKey) -> DietState {
        guard let dayKey, dayKey != day else { return self }
        var next = self
        next.dayKey = day
        next.nutrition = .zero
        return next
    }
}
