import Foundation
import WidgetBusProtocol
import WidgetDomain

/// The content of a snapshot file: what one user's widget renders with no other source, as the
/// seeds' widgets read their App Group JSON. Every kind has the same envelope around exactly the
/// timeline timeline-service builds for the same state, so a new kind needs nothing here
/// (docs/SNAPSHOTS.md).
public struct WidgetSnapshot: Encodable, Sendable {
    /// Bumped when the file's shape changes; a file of another version is rewritten at start.
    public static let schemaVersion = 1

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

    /// What the file reflects. Files with equal stamps differ only in the instant they were
    /// built at, so one is never replaced by the other.
    public struct Stamp: Codable, Hashable, Sendable {
        public var schemaVersion: Int
        public var stateVersion: UInt64
        /// The metrics version, for a kind that shows metrics (`StressMonitorWidget`); else nil.
        public var metricsVersion: UInt64?
        public var timeZone: String

        public init(
            stateVersion: UInt64, metricsVersion: UInt64? = nil, timeZone: String, schemaVersion: Int = WidgetSnapshot.schemaVersion
        ) {
            self.schemaVersion = schemaVersion
            self.stateVersion = stateVersion
            self.metricsVersion = metricsVersion
            self.timeZone = timeZone
        }
    }

    public var stamp: Stamp {
        Stamp(stateVersion: timeline.stateVersion, metricsVersion: timeline.metricsVersion, timeZone: timeZone)
    }

    private enum CodingKeys: String, CodingKey {
        case schemaVersion, kind, user, stateVersion, metricsVersion, timeZone, generatedAt, timeline
    }

    /// `{"schemaVersion", "kind", "user", "stateVersion", "metricsVersion"? (StressMonitorWidget),
    /// "timeZone", "generatedAt", "timeline": {"entries", "policy"}}`
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Self.schemaVersion, forKey: .schemaVersion)
        try container.encode(timeline.kind, forKey: .kind)
        try container.encode(timeline.user, forKey: .user)
        try container.encode(timeline.stateVersion, forKey: .stateVersion)
        try container.encodeIfPresent(timeline.metricsVersion, forKey: .metricsVersion)
        try container.encode(timeZone, forKey: .timeZone)
        try container.encode(generatedAt, forKey: .generatedAt)
        try container.encode(timeline.timeline, forKey: .timeline)
    }
}
