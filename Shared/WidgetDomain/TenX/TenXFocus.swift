import Foundation

/// One of a day's three focuses.
public struct TenXFocus: Codable, Equatable, Sendable, Identifiable {
    public let id: String
    public let title: String
    /// The goal the focus was linked to; it was active when the day was set.
    public let goalId: String
    /// Position 0–2 on the day, as the user entered them.
    public let sortOrder: Int
    public var isCompleted: Bool
    /// When the focus was last completed; cleared when it is un-completed.
    public var completedAt: Date?
    /// The day this focus was carried over from, if it continued an unfinished one.
    public let carriedFromDayKey: DayKey?
    public let createdAt: Date

    public init(
        id: String, title: String, goalId: String, sortOrder: Int, isCompleted: Bool = false,
        completedAt: Date? = nil, carriedFromDayKey: DayKey? = nil, createdAt: Date
    ) {
        self.id = id
        self.title = title
        self.goalId = goalId
        self.sortOrder = sortOrder
        self.isCompleted = isCompleted
        self.completedAt = completedAt
        self.carriedFromDayKey = carriedFromDayKey
        self.createdAt = createdAt
    }

    /// Completion and its timestamp always change together.
    public mutating func setCompleted(_ completed: Bool, now: Date) {
        isCompleted = completed
        completedAt = completed ? now : nil
    }
}
