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
    public var sequence: UInt64
    public init(sequence: UInt64) { self.sequence = sequence }
}
