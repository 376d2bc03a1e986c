import Foundation

/// One local day's plan: exactly three focuses, identified by the user's `dayKey`.
public struct TenXDayEntry: Codable, Equatable, Sendable {
    public let dayKey: DayKey
    public let createdAt: Date
    /// Always ``TenXLimits/dailyFocusCount`` focuses, in `sortOrder`.
    public var focuses: [TenXFocus]

    public init(dayKey: DayKey, createdAt: Date, focuses: [TenXFocus]) {
        self.dayKey = dayKey
        self.createdAt = createdAt
        self.focuses = focuses.sorted { $0.sortOrder < $1.sortOrder }
    }

    public var completedCount: Int { focuses.filter(\.isCompleted).count }

    /// A day keeps the streak alive once at least one focus is done.
    public var maintainsStreak: Bool { completedCount >= 1 }

    public var isFullyComplete: Bool { completedCount == TenXLimits.dailyFocusCount }
}
