import Foundation
import W3CTraceContext
import WidgetDomain

/// A publisher's epoch: a random id it draws each time it starts and carries on every event,
/// heartbeat and snapshot reply. A sequence number means something only within its epoch — a
/// publisher whose sequence restarts, or whose store was replaced, starts a new epoch — so a
/// follower that sees an epoch other than the one it synced in re-syncs, whatever the numbers say.
public enum PublisherEpoch {
    /// 16 lowercase hex digits.
    public static func random() -> String {
        let digits = String(UInt64.random(in: .min ... .max), radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}

/// What caused a change a service passes on: the id of the request or pushed message that made it
/// (an event's `causedBy`) and the trace that message belongs to, when it carried one; the next
/// event continues that trace.
public struct Cause: Sendable, Equatable {
    public var id: String
    public var trace: TraceContext?

    public init(id: String, trace: TraceContext?) {
        self.id = id
        self.trace = trace
    }
}

/// `StateChanged`: the owner committed a new state. `sequence` is the publisher's, strictly
/// increasing with no gaps: a subscriber that sees a jump has lost events and must re-snapshot.
public struct StateChangedBody: Codable, Sendable, Equatable {
    public var epoch: String
    public var sequence: UInt64
    /// The id of the request that caused the change, so a client can match its own effects.
    public var causedBy: String
    public var record: StateRecord

    public init(epoch: String, sequence: UInt64, causedBy: String, record: StateRecord) {
        self.epoch = epoch
        self.sequence = sequence
        self.causedBy = causedBy
        self.record = record
    }

    /// In the wire's sorted order: the encoder then writes the record in place instead of copying it
    /// into order afterwards.
    private enum CodingKeys: String, CodingKey { case causedBy, epoch, record, sequence }
}

/// `ProfileChanged`: a user's settings changed; shares the sequence of `StateChanged`.
public struct ProfileChangedBody: Codable, Sendable, Equatable {
    public var epoch: String
    public var sequence: UInt64
    public var causedBy: String
    public var profile: UserProfile

    public init(epoch: String, sequence: UInt64, causedBy: String, profile: UserProfile) {
        self.epoch = epoch
        self.sequence = sequence
        self.causedBy = causedBy
        self.profile = profile
    }
}

/// `PushTokensChanged`: a user's widget push tokens changed (all of them, as they are now);
/// shares the sequence of `StateChanged`.
public struct PushTokensChangedBody: Codable, Sendable, Equatable {
    public var epoch: String
    public var sequence: UInt64
    public var causedBy: String
    public var pushTokens: UserPushTokens

    public init(epoch: String, sequence: UInt64, causedBy: String, pushTokens: UserPushTokens) {
        self.epoch = epoch
        self.sequence = sequence
        self.causedBy = causedBy
        self.pushTokens = pushTokens
    }
}

/// `AppForegrounded`: the user's app came to the foreground, which triggers a sync of their
/// pending records. It takes a number in the state sequence like any event there; replicas that
/// do not care skip it.
public struct AppForegroundedBody: Codable, Sendable, Equatable {
    public var epoch: String
    public var sequence: UInt64
    public var causedBy: String
    public var user: String

    public init(epoch: String, sequence: UInt64, causedBy: String, user: String) {
        self.epoch = epoch
        self.sequence = sequence
        self.causedBy = causedBy
        self.user = user
    }
}

/// `TimelineChanged`: timeline-service built a new timeline for a user's widget kind.
public struct TimelineChangedBody: Encodable, Sendable, Equatable {
    public var epoch: String
    public var sequence: UInt64
    /// The request id behind the state change this timeline reflects.
    public var causedBy: String?
    public var timeline: TimelineBody

    public init(epoch: String, sequence: UInt64, causedBy: String?, timeline: TimelineBody) {
        self.epoch = epoch
        self.sequence = sequence
        self.causedBy = causedBy
        self.timeline = timeline
    }

    /// In the wire's sorted order: the encoder then writes the timeline in place instead of copying it
    /// into order afterwards.
    private enum CodingKeys: String, CodingKey { case causedBy, epoch, sequence, timeline }
}

/// `TimelineSnapshotReply`: every timeline timeline-service publishes under the requested topic
/// prefix, built as of `sequence` in `epoch` — what a follower of `TimelineChanged` re-syncs
/// from (the Clone pattern, as `SnapshotReply` is for state).
public struct TimelineSnapshotBody: Encodable, Sendable, Equatable {
    public var epoch: String
    public var sequence: UInt64
    public var timelines: [TimelineBody]

    public init(epoch: String, sequence: UInt64, timelines: [TimelineBody]) {
        self.epoch = epoch
        self.sequence = sequence
        self.timelines = timelines
    }
}

/// `Heartbeat`: sent once a second with the publisher's epoch and latest sequence, so a
/// subscriber notices the loss of the *last* event too, and a publisher restart. A publisher
/// that follows other publishers' streams also says how far it has got in each (`follows`), and
/// beats ten times a second, so that its sources see within that how far behind it is.
public struct HeartbeatBody: Codable, Sendable, Equatable {
    /// The publishing service, so one subscriber connected to several publishers can tell them apart.
    public var publisher: String
    public var epoch: String
    public var sequence: UInt64
    /// Where the publisher stands in each stream it follows and is synced with; absent for a
    /// publisher that follows none.
    public var follows: [FollowedPosition]?

    public init(publisher: String, epoch: String, sequence: UInt64, follows: [FollowedPosition]? = nil) {
        self.publisher = publisher
        self.epoch = epoch
        self.sequence = sequence
        self.follows = follows
    }
}

/// How far a follower has applied another publisher's stream: every event of `publisher` up to
/// `sequence` in `epoch`.
public struct FollowedPosition: Codable, Sendable, Equatable {
    public var publisher: String
    public var epoch: String
    public var sequence: UInt64

    public init(publisher: String, epoch: String, sequence: UInt64) {
        self.publisher = publisher
        self.epoch = epoch
        self.sequence = sequence
    }
}
