import Foundation

/// One TenX timeline entry's content: state, focuses, streak, completedCount, dayKey and
/// generatedAt, plus the deep link a tap opens.
public struct TenXWidgetSnapshot: Codable, Equatable, Sendable {
    public var state: TenXSnapshotState
    /// Today's focuses in order; empty unless today is set, and always empty on the lock
    /// screen, whose circular face shows no titles.
    public var focuses: [TenXWidgetFocus]
    public var streak: Int
    /// Done focuses of today (0 when today is not set).
    public var completedCount: Int
    /// The local day this content is for.
    public var dayKey: DayKey
    public var generatedAt: Date
    public var deepLink: TenXDeepLink

    public init(
        state: TenXSnapshotState, focuses: [TenXWidgetFocus], streak: Int, completedCount: Int, dayKey: DayKey,
        generatedAt: Date, deepLink: TenXDeepLink
    ) {
        self.state = state
        self.focuses = focuses
        self.streak = streak
        self.completedCount = completedCount
        self.dayKey = dayKey
        self.generatedAt = generatedAt
        self.deepLink = deepLink
    }
}

/// A focus as a widget draws it: its goal's title resolved so the widget needs nothing else.
public struct TenXWidgetFocus: Codable, Equatable, Sendable, Identifiable {
    public var id: String
    public var title: String
    public var goalId: String
    public var goalTitle: String?
    public var isCompleted: Bool
    public var carriedFromDayKey: DayKey?

    public init(
        id: String, title: String, goalId: String, goalTitle: String?, isCompleted: Bool, carriedFromDayKey: DayKey?
    ) {
        self.id = id
        self.title = title
        self.goalId = goalId
        self.goalTitle = goalTitle
        self.isCompleted = isCompleted
        self.carriedFromDayKey = carriedFromDayKey
    }
}
