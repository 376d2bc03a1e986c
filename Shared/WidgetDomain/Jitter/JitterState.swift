import Foundation

/// Durable state of one user's Jitter widget: the app's scores and the open sipping session.
public struct JitterState: Codable, Equatable, Sendable {
    /// nil until the app first sends scores; until then the widget shows placeholder values.
    public var scores: JitterScores?
    /// The sipping session started last and not completed; ignored once expired.
    public var session: DrinkSession?

    public init(scores: JitterScores? = nil, session: DrinkSession? = nil) {
        self.scores = scores
        self.session = session
    }

    public static let initial = JitterState()

    /// The session the widget times at `date`: the stored one unless it has expired.
    ///
    /// Expiry is computed, not stored, because a derived reader may not write; the reducer drops
    /// an expired session on the next message.
    public func activeSession(at date: Date) -> DrinkSession? {
        guard let session, session.isActive(at: date) else { return nil }
        return session
    }
}
