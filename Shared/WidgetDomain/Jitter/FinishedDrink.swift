import Foundation

/// A sipping session the user completed, pending sync. Completing it also opens
/// `jitter://complete-drink?sessionId=…`, which hands it to the app.
public struct FinishedDrink: Codable, Equatable, Sendable, Identifiable {
    /// The drink session's id.
    public let id: String
    public let startedAt: Date
    public let completedAt: Date
    public let elapsedSeconds: Int

    public init(id: String, startedAt: Date, completedAt: Date) {
        self.id = id
        self.startedAt = startedAt
        self.completedAt = completedAt
        elapsedSeconds = max(0, Int(completedAt.timeIntervalSince(startedAt)))
    }
}
