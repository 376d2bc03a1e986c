import Foundation
import WidgetDomain

/// `StateChanged`: the owner committed a new state. `sequence` is the publisher's, strictly
/// increasing with no gaps: a subscriber that sees a jump has lost events and must re-snapshot.
public struct StateChangedBody: Codable, Sendable, Equatable {
    public var sequence: UInt64
    /// The id of the request that caused the change, so a client can match its own effects.
    public var causedBy: String
    public var record: StateRecord

    public init(sequence: UInt64, causedBy: String, record: StateRecord) {
        self.sequence = sequence
        self.causedBy = causedBy
        self.record = record
    }
}

/// `ProfileChanged`: a user's settings changed; shares the sequence of `StateChanged`.
public struct ProfileChangedBody: Codable, Sendable, Equatable {
    public var sequence: UInt64
    public var causedBy: String
    public var profile: UserProfile

    public init(sequence: UInt64, causedBy: String, profile: UserProfile) {
        self.sequence = sequence
        self.causedBy = causedBy
        self.profile = profile
    }
}

/// `AppForegrounded`: the user's app came to the foreground (the seed's sync trigger). It takes
/// a number in the state sequence like any event there; replicas that do not care skip it.
public struct AppForegroundedBody: Codable, Sendable, Equatable {
    public var sequence: UInt64
    public var causedBy: String
    public var user: String

    public init(sequence: UInt64, causedBy: String, user: String) {
        self.sequence = sequence
        self.causedBy = causedBy
        self.user = user
    }
}

/// `TimelineChanged`: timeline-service built a new timeline for a user's widget kind.
public struct TimelineChangedBody: Encodable, Sendable, Equatable {
    public var sequence: UInt64
    /// The request id behind the state change this timeline reflects.
    public var causedBy: String?
    public var timeline: TimelineBody

    public init(sequence: UInt64, causedBy: String?, timeline: TimelineBody) {
        self.sequence = sequence
        self.causedBy = causedBy
        self.timeline = timeline
    }
}

/// `Heartbeat`: sent once a second with the publisher's latest sequence, so a subscriber notices
/// the loss of the *last* event too, and a publisher restart.
public struct HeartbeatBody: Codable, Sendable, Equatable {
    /// The publishing service, so one subscriber connected to several publishers can tell them apart.
    public var publisher: String
    public var sequence: UInt64

    public init(publisher: String, sequence: UInt64) {
        self.publisher = publisher
        self.sequence = sequence
    }
}
