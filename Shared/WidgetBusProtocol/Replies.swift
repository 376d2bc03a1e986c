import Foundation
import WidgetDomain

/// One user's state of one app at a point of the owner's sequence. Used by `StateReply`,
/// `StateChanged` and snapshot items alike, so every reader decodes state the same way.
public struct StateRecord: Codable, Sendable, Equatable {
    public var user: String
    public var app: WidgetApp
    /// The owner's sequence number of the last change to this state.
    public var version: UInt64
    public var state: WidgetState {
        didSet { encodedState = nil }
    }
    /// The state's wire JSON once ``encodingStateOnce()`` has produced it: every message
    /// that carries this record (the stored row, the reply, the event) splices these bytes
    /// instead of encoding the state again. Not part of equality; cleared when `state` changes.
    public private(set) var encodedState: EncodedJSON?

    public init(user: String, app: WidgetApp, version: UInt64, state: WidgetState) {
        self.user = user
        self.app = app
        self.version = version
        self.state = state
    }

    /// This record with its state encoded, once, for the messages that will carry it — written
    /// field by field (`WidgetState+WireJSON.swift`), the same bytes as its `Encodable` path.
    public func encodingStateOnce() throws -> StateRecord {
        guard encodedState == nil else { return self }
        var record = self
        var writer = WireJSONWriter(bytes: [])
        try state.writeWireJSON(to: &writer)
        record.encodedState = EncodedJSON(bytes: writer.bytes)
        return record
    }

    /// This record without its encoded state: what a long-lived copy keeps, since the bytes
    /// serve only the messages of the moment the state was made.
    public var withoutEncodedState: StateRecord {
        var record = self
        record.encodedState = nil
        return record
    }

    public static func == (lhs: StateRecord, rhs: StateRecord) -> Bool {
        lhs.user == rhs.user && lhs.app == rhs.app && lhs.version == rhs.version && lhs.state == rhs.state
    }

    /// In the wire's sorted order, as ``encode(to:)`` writes them: the state goes in place.
    private enum CodingKeys: String, CodingKey { case app, state, user, version }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        user = try container.decode(String.self, forKey: .user)
        app = try container.decode(WidgetApp.self, forKey: .app)
        version = try container.decode(UInt64.self, forKey: .version)
        state = try WidgetState(app: app, from: container, forKey: .state)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(app, forKey: .app)
        if let encodedState {
            try container.encode(encodedState, forKey: .state)
        } else {
            try container.encode(state, forKey: .state)
        }
        try container.encode(user, forKey: .user)
        try container.encode(version, forKey: .version)
    }
}

/// `StateReply`: the state after the intent, and a URL the client should open, if any (a
/// widget button that hands over to the app). Encoded flat: the ``StateRecord`` fields plus
/// `openURL`.
public struct StateReplyBody: Codable, Sendable, Equatable {
    public var record: StateRecord
    public var openURL: String?

    public init(record: StateRecord, openURL: String? = nil) {
        self.record = record
        self.openURL = openURL
    }

    private enum CodingKeys: String, CodingKey { case openURL }

    public init(from decoder: any Decoder) throws {
        record = try StateRecord(from: decoder)
        openURL = try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(String.self, forKey: .openURL)
    }

    public func encode(to encoder: any Encoder) throws {
        try record.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(openURL, forKey: .openURL)
    }
}

/// A user's settings that every widget of theirs depends on. `ProfileReply` and the body of
/// `ProfileChanged` events carry it.
public struct UserProfile: Codable, Sendable, Equatable {
    public var user: String
    /// IANA identifier; users who never set one are in UTC.
    public var timeZone: String
    /// The owner's sequence number of the last change.
    public var version: UInt64

    public init(user: String, timeZone: String, version: UInt64) {
        self.user = user
        self.timeZone = timeZone
        self.version = version
    }

    public static let defaultTimeZone = "UTC"
}

/// `SnapshotReply`: every state, profile and user's push tokens under the requested prefix, as
/// of `sequence` in `epoch`. A subscriber applies only events of that epoch with a higher
/// sequence afterwards (the Clone pattern).
public struct SnapshotBody: Codable, Sendable, Equatable {
    public var epoch: String
    public var sequence: UInt64
    public var states: [StateRecord]
    public var profiles: [UserProfile]
    /// Users with at least one push token; the field is left out when there is none.
    public var pushTokens: [UserPushTokens]

    public init(
        epoch: String, sequence: UInt64, states: [StateRecord], profiles: [UserProfile] = [], pushTokens: [UserPushTokens] = []
    ) {
        self.epoch = epoch
        self.sequence = sequence
        self.states = states
        self.profiles = profiles
        self.pushTokens = pushTokens
    }

    private enum CodingKeys: String, CodingKey { case epoch, sequence, states, profiles, pushTokens }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        epoch = try container.decode(String.self, forKey: .epoch)
        sequence = try container.decode(UInt64.self, forKey: .sequence)
        states = try container.decode([StateRecord].self, forKey: .states)
        profiles = try container.decodeIfPresent([UserProfile].self, forKey: .profiles) ?? []
        pushTokens = try container.decodeIfPresent([UserPushTokens].self, forKey: .pushTokens) ?? []
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(epoch, forKey: .epoch)
        try container.encode(sequence, forKey: .sequence)
        try container.encode(states, forKey: .states)
        try container.encode(profiles, forKey: .profiles)
        if !pushTokens.isEmpty { try container.encode(pushTokens, forKey: .pushTokens) }
    }
}

/// A pending record with the revision (state sequence) of its last change. Encoded flat:
/// `{"collection", "record", "revision"}`.
public struct RevisedRecord: Codable, Sendable, Equatable {
    public var revision: UInt64
    public var record: PendingRecord

    public init(revision: UInt64, record: PendingRecord) {
        self.revision = revision
        self.record = record
    }

    private enum CodingKeys: String, CodingKey { case revision }

    public init(from decoder: any Decoder) throws {
        revision = try decoder.container(keyedBy: CodingKeys.self).decode(UInt64.self, forKey: .revision)
        record = try PendingRecord(from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        try record.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(revision, forKey: .revision)
    }

    public var acknowledgement: RecordAcknowledgement {
        RecordAcknowledgement(collection: record.collection, id: record.id, revision: revision)
    }
}

/// `PendingRecordsReply`: a user's records not yet acknowledged by the sync target.
public struct PendingRecordsBody: Codable, Sendable, Equatable {
    public var user: String
    public var records: [RevisedRecord]

    public init(user: String, records: [RevisedRecord]) {
        self.user = user
        self.records = records
    }
}

/// `AcknowledgeReply`: how many acknowledged records were cleared, and how many stay pending
/// because they changed after the acknowledged revision (or were already cleared).
public struct AcknowledgeReplyBody: Codable, Sendable, Equatable {
    public var user: String
    public var cleared: Int
    public var kept: Int

    public init(user: String, cleared: Int, kept: Int) {
        self.user = user
        self.cleared = cleared
        self.kept = kept
    }
}

/// `PendingUsersReply`: users with at least one pending record.
public struct PendingUsersBody: Codable, Sendable, Equatable {
    public var users: [String]
    public init(users: [String]) { self.users = users }
}

/// `TimelineReply` and the body of `TimelineChanged`.
public struct TimelineBody: Encodable, Sendable, Equatable {
    public var kind: WidgetKind
    public var user: String
    /// The state version the timeline was built from (0: the user has no state yet).
    public var stateVersion: UInt64
    /// For a kind that also shows metrics-ingest's aggregate (`StressMonitorWidget`), the metrics
    /// version it was built from (0: none yet); nil for the other kinds.
    public var metricsVersion: UInt64?
    /// The version of the user's profile (their zone) it was built from (0: never set). With
    /// `stateVersion` it names every change of the user's the timeline reflects, so a client can
    /// tell whether its own write is in it.
    public var profileVersion: UInt64
    /// The IANA zone the timeline's local days and hours were computed in.
    public var timeZone: String
    /// When the timeline was built: its `now`, and the date of its first entry.
    public var generatedAt: Date
    public var timeline: WidgetTimeline

    public init(
        kind: WidgetKind, user: String, stateVersion: UInt64, metricsVersion: UInt64? = nil, profileVersion: UInt64 = 0,
        timeZone: String, generatedAt: Date, timeline: WidgetTimeline
    ) {
        self.kind = kind
        self.user = user
        self.stateVersion = stateVersion
        self.metricsVersion = metricsVersion
        self.profileVersion = profileVersion
        self.timeZone = timeZone
        self.generatedAt = generatedAt
        self.timeline = timeline
    }

    /// When the timeline runs out: its reload date (``WidgetTimeline/reloadDate``), by which
    /// timeline-service publishes it anew; nil for a timeline that never runs out.
    public var validUntil: Date? { timeline.reloadDate }

    private enum CodingKeys: String, CodingKey {
        case kind, user, stateVersion, metricsVersion, profileVersion, timeZone, generatedAt, validUntil
    }

    /// Flat: `{"kind", "user", "stateVersion", "metricsVersion"?, "profileVersion", "timeZone",
    /// "generatedAt", "validUntil"?, "entries", "policy"}`. The wire's encoder writes exactly these bytes
    /// directly (``writeWireJSON(to:)``): timelines are the pipeline's largest encoding.
    public func encode(to encoder: any Encoder) throws {
        if let wire = encoder as? WireEncodingNode {
            try wire.writeDirectly { try writeWireJSON(to: &$0) }
            return
        }
        try timeline.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .kind)
        try container.encode(user, forKey: .user)
        try container.encode(stateVersion, forKey: .stateVersion)
        try container.encodeIfPresent(metricsVersion, forKey: .metricsVersion)
        try container.encode(profileVersion, forKey: .profileVersion)
        try container.encode(timeZone, forKey: .timeZone)
        try container.encode(generatedAt, forKey: .generatedAt)
        try container.encodeIfPresent(validUntil, forKey: .validUntil)
    }
}

/// A timeline body as a client reads it, with entries of a known content type.
public struct DecodedTimelineBody<Content: Codable & Sendable & Equatable>: Decodable, Sendable, Equatable {
    public var kind: WidgetKind
    public var user: String
    public var stateVersion: UInt64
    public var metricsVersion: UInt64?
    public var profileVersion: UInt64
    public var timeZone: String
    public var generatedAt: Date
    public var validUntil: Date?
    public var entries: [TimelineEntry<Content>]
    public var policy: ReloadPolicy
}

/// The body of an `Error` reply.
public struct ErrorBody: Codable, Sendable, Equatable, Error {
    public var code: ErrorCode
    public var message: String
    /// Only on `wrong_shard`: where to resend.
    public var redirect: ShardRedirect?

    public init(code: ErrorCode, message: String, redirect: ShardRedirect? = nil) {
        self.code = code
        self.message = message
        self.redirect = redirect
    }
}
