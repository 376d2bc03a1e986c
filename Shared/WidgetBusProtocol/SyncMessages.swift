import Foundation

/// One record (or a whole pass) the sync target refused, with its error.
public struct SyncFailure: Codable, Sendable, Equatable {
    /// The record's collection and id; nil when the whole pass failed (e.g. database down).
    public var collection: String?
    public var id: String?
    public var error: String

    public init(collection: String? = nil, id: String? = nil, error: String) {
        self.collection = collection
        self.id = id
        self.error = error
    }
}

/// The result of one sync pass for one user: `SyncReply`, `SyncStatusReply` items and the body
/// of `SyncCompleted` events.
public struct SyncResult: Codable, Sendable, Equatable {
    public var user: String
    public var startedAt: Date
    public var durationMilliseconds: Double
    /// Records upserted at the target and acknowledged to intent-handler.
    public var pushed: Int
    public var failures: [SyncFailure]
    /// When the agent will try this user again after a failure (exponential backoff), if it will.
    public var nextAttemptAt: Date?

    public init(
        user: String, startedAt: Date, durationMilliseconds: Double, pushed: Int, failures: [SyncFailure],
        nextAttemptAt: Date? = nil
    ) {
        self.user = user
        self.startedAt = startedAt
        self.durationMilliseconds = durationMilliseconds
        self.pushed = pushed
        self.failures = failures
        self.nextAttemptAt = nextAttemptAt
    }
}

/// `SyncStatusReply`: the latest result per user.
public struct SyncStatusBody: Codable, Sendable, Equatable {
    public var results: [SyncResult]
    public init(results: [SyncResult]) { self.results = results }
}

/// `SyncCompleted`: a pass finished; `sequence` is sync-agent's own publisher sequence.
public struct SyncCompletedBody: Codable, Sendable, Equatable {
    public var sequence: UInt64
    public var result: SyncResult

    public init(sequence: UInt64, result: SyncResult) {
        self.sequence = sequence
        self.result = result
    }
}
