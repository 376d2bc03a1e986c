import Foundation
import WidgetBusProtocol
import WidgetDomain

/// The content of a snapshot file: what one user's widget renders with no other source, as the
/// seeds' widgets read their App Group JSON. Every kind has the same envelope around exactly the
/// timeline timeline-service builds for the same state, so a new kind needs nothing here
/// (docs/SNAPSHOTS.md).
public struct WidgetSnapshot: Encodable, Sendable {
    /// Bumped when the file's shape changes; a file of another version is rewritten at start.
    /// 2 added `validUntil`.
    public static let schemaVersion = 2
    /// Snapshot files written at once: the file system commits concurrent fsyncs together, so
    /// eight write several times more files per second than one (docs/SNAPSHOTS.md). Shared by
    /// snapshot-writer and its benchmark's raw-write baseline.
    public static let writesInFlight = 8

    public var timeline: TimelineBody
    /// The IANA zone the timeline's local days and hours were computed in.
    public var timeZone: String
    /// When the timeline was built: its `now`.
    public var generatedAt: Date

    public init(timeline: TimelineBody, timeZone: String, generatedAt: Date) {
        self.timeline = timeline
        self.timeZone = timeZone
        self.generatedAt = generatedAt
    }

    /// When the timeline in the file runs out: its reload date (``WidgetTimeline/reloadDate``),
    /// by which snapshot-writer has written a new one even if nothing changed; nil for a
    /// timeline that never runs out.
    public var validUntil: Date? { timeline.timeline.reloadDate }

    /// What the file reflects: whose widget, of which state and metrics, in which zone. Files
    /// with equal stamps differ only in the instant they were built at.
    public struct Stamp: Codable, Hashable, Sendable {
        public var schemaVersion: Int
        public var kind: WidgetKind
        public var user: String
        public var stateVersion: UInt64
        /// The metrics version, for a kind that shows metrics (`StressMonitorWidget`); else nil.
        public var metricsVersion: UInt64?
        public var timeZone: String

        public init(
            kind: WidgetKind, user: String, stateVersion: UInt64, metricsVersion: UInt64? = nil, timeZone: String,
            schemaVersion: Int = WidgetSnapshot.schemaVersion
        ) {
            self.schemaVersion = schemaVersion
            self.kind = kind
            self.user = user
            self.stateVersion = stateVersion
            self.metricsVersion = metricsVersion
            self.timeZone = timeZone
        }
    }

    public var stamp: Stamp {
        Stamp(
            kind: timeline.kind, user: timeline.user, stateVersion: timeline.stateVersion, metricsVersion: timeline.metricsVersion,
            timeZone: timeZone)
    }

    /// What a reader needs from a file on disk to tell whether it is current: its stamp, and
    /// when its timeline runs out.
    public struct Header: Decodable, Sendable {
        public var stamp: Stamp
        public var validUntil: Date?

        private enum CodingKeys: String, CodingKey { case validUntil }

        public init(from decoder: any Decoder) throws {
            stamp = try Stamp(from: decoder)
            validUntil = try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(Date.self, forKey: .validUntil)
        }
    }

    private enum CodingKeys: String, CodingKey {
        case schemaVersion, kind, user, stateVersion, metricsVersion, timeZone, generatedAt, validUntil, timeline
    }

    /// `{"schemaVersion", "kind", "user", "stateVersion", "metricsVersion"? (StressMonitorWidget),
    /// "timeZone", "generatedAt", "validUntil"?, "timeline": {"entries", "policy"}}`
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Self.schemaVersion, forKey: .schemaVersion)
        try container.encode(timeline.kind, forKey: .kind)
        try container.encode(timeline.user, forKey: .user)
        try container.encode(timeline.stateVersion, forKey: .stateVersion)
        try container.encodeIfPresent(timeline.metricsVersion, forKey: .metricsVersion)
        try container.encode(timeZone, forKey: .timeZone)
        try container.encode(generatedAt, forKey: .generatedAt)
        try container.encodeIfPresent(validUntil, forKey: .validUntil)
        try container.encode(timeline.timeline, forKey: .timeline)
    }
}
