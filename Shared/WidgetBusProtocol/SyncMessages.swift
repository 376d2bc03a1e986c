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
    /// Of the pushed records, those that changed while the pass ran (e.g. a check-in marked done):
    /// intent-handler keeps their newer revision pending, so the next pass pushes it.
    public var keptPending: Int
    public var failures: [SyncFailure]
    /// When the agent will try this user again after a failure (exponential backoff), if it will.
    public var nextAttemptAt: Date?

    public init(
        user: String, startedAt: Date, durationMilliseconds: Double, pushed: Int, keptPending: Int = 0,
        failures: [SyncFailure], nextAttemptAt: Date? = nil
    ) {
        self.user = user
        self.startedAt = startedAt
        self.durationMilliseconds = durationMilliseconds
        self.pushed = pushed
        self.keptPending = keptPending
        self.failures = failures
        self.nextAttemptAt = nextAttemptAt
    }

    private enum CodingKeys: String, CodingKey {
        case user, startedAt, durationMilliseconds, pushed, keptPending, failures, nextAttemptAt
    }

    /// Tolerant of results written before `keptPending` existed (read as 0).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        user = try container.decode(String.self, forKey: .user)
        startedAt = try container.decode(Date.self, forKey: .startedAt)
        durationMilliseconds = try container.decode(Double.self, forKey: .durationMilliseconds)
        pushed = try container.decode(Int.self, forKey: .pushed)
        keptPending = try container.decodeIfPresent(Int.self, forKey: .keptPending) ?? 0
        failures = try container.decode([SyncFailure].self, forKey: .failures)
        nextAttemptAt = try container.decodeIfPresent(Date.self, forKey: .nextAttemptAt)
    }

    /// Whether every pending record reached the target (nothing refused, the pass did not fail).
    public var succeeded: Bool { failures.isEmpty }
}

/// `SyncStatusReply`: the latest result per user.
public struct SyncStatusBody: Codable, Sendable, Equatable {
    public var results: [SyncResult]
    public init(results: [SyncResult]) { self.results = results }
}

/// `SyncCompleted`: a pass finished; `sequence` is sync-agent's own publisher sequence.
public struct SyncCompletedBody: Codable, Sendable, Equatable {
    public var epoch: String
    public var sequence: UInt64
    public var result: SyncResult

    public init(epoch: String, sequence: UInt64, result: SyncResult) {
        self.epoch = epoch
        self.sequence = sequence
        self.result = result
    }
}
