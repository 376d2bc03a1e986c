import Foundation

/// A sipping session started from the widget's "Add Drink" button.
///
/// Whether it is active and how long it has run are not stored: a session exists only while
/// active, and its elapsed time is a function of the clock.
public struct DrinkSession: Codable, Equatable, Sendable, Identifiable {
    public let id: String
    public let startTime: Date

    public init(id: String, startTime: Date) {
        self.id = id
        self.startTime = startTime
    }

    /// A session still open this long after its start was forgotten, not sipped: it is abandoned.
    /// The widget goes back to the scores and the session can no longer be completed.
    public static let maximumDuration: TimeInterval = 4 * 3600

    /// The instant the session is abandoned if not completed.
    public var expiresAt: Date { startTime.addingTimeInterval(Self.maximumDuration) }

    public func isActive(at date: Date) -> Bool { date < expiresAt }

    /// Whole seconds sipped by `date` (never negative, should clocks disagree).
    public func elapsedSeconds(at date: Date) -> Int {
        max(0, Int(date.timeIntervalSince(startTime).rounded(.down)))
    }

    /// The timer text, `HH:MM:SS`, each part two digits.
    public static func formatElapsed(_ seconds: Int) -> String {
        let hours = seconds / 3600
        let minutes = (seconds % 3600) / 60
        let rest = seconds % 60
        return "\(twoDigits(hours)):\(twoDigits(minutes)):\(twoDigits(rest))"
    }

    private static func twoDigits(_ value: Int) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}
