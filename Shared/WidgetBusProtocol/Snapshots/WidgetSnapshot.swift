import Foundation
import WidgetDomain

/// The content of a snapshot file: what one user's widget renders with no other source, as a
/// widget reads the JSON its app leaves in their shared App Group. Every kind has the same envelope around exactly the
/// timeline timeline-service built and encoded (docs/SNAPSHOTS.md): a snapshot is made from the
/// bytes of a `TimelineBody` as timeline-service sent them, which it splices into the file
/// unchanged, so a timeline is built and encoded once, and a new kind needs nothing here.
public struct WidgetSnapshot: Sendable {
    /// Bumped when the file's shape changes; a file of another version is rewritten at start.
    /// 2 added `validUntil`.
    public static let schemaVersion = 2

    /// What the file reflects and when it runs out.
    public let header: Header
    private let file: File

    /// The snapshot of the timeline whose encoded `TimelineBody` is `body` (a `TimelineReply`'s
    /// body, a `TimelineChanged`'s `timeline`, an entry of a `TimelineSnapshotReply`); nil when
    /// `body` is not one.
    public init?(timelineBody body: JSONFieldScanner) {
        guard let kind = body.string("kind").flatMap(WidgetKind.init(rawValue:)), let user = body.string("user"),
            let stateVersion = body.unsignedInteger("stateVersion"), let timeZone = body.string("timeZone"),
            let generatedAt = body.encoded("generatedAt"), let entries = body.encoded("entries"), let policy = body.encoded("policy")
        else { return nil }
        let metricsVersion = body.unsignedInteger("metricsVersion")
        header = Header(
            stamp: Stamp(kind: kind, user: user, stateVersion: stateVersion, metricsVersion: metricsVersion, timeZone: timeZone),
            validUntil: body.date("validUntil"))
        file = File(
            generatedAt: generatedAt, kind: body.encoded("kind")!, metricsVersion: metricsVersion, schemaVersion: Self.schemaVersion,
            stateVersion: stateVersion, timeZone: body.encoded("timeZone")!, timeline: File.Timeline(entries: entries, policy: policy),
            user: body.encoded("user")!, validUntil: body.encoded("validUntil"))
    }

    public var stamp: Stamp { header.stamp }

    /// The bytes of timeline it holds (its entries and policy): what it costs in memory while it
    /// waits to be written.
    public var timelineByteCount: Int { file.timeline.entries.bytes.count + file.timeline.policy.bytes.count }

    /// The file's bytes: `{"generatedAt", "kind", "metricsVersion"? (StressMonitorWidget),
    /// "schemaVersion", "stateVersion", "timeZone", "timeline": {"entries", "policy"}, "user",
    /// "validUntil"?}`, every value but `schemaVersion` spliced from the timeline body.
    public func encoded(with codec: WireCodec) throws -> Data {
        try codec.encode(file)
    }

    /// The file's fields, declared in the order they are written (sorted keys): the encoder then
    /// appends each in place instead of reordering a timeline's worth of bytes afterwards.
    private struct File: Encodable {
        struct Timeline: Encodable {
            var entries: EncodedJSON
            var policy: EncodedJSON
        }

        var generatedAt: EncodedJSON
        var kind: EncodedJSON
        var metricsVersion: UInt64?
        var schemaVersion: Int
        var stateVersion: UInt64
        var timeZone: EncodedJSON
        var timeline: Timeline
        var user: EncodedJSON
        var validUntil: EncodedJSON?
    }

    /// What a file reflects: whose widget, of which state and metrics, in which zone. Files
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

        /// Whether this stamp is of an earlier timeline of the same widget than `later`: the same
        /// file's, with neither version ahead of `later`'s and one behind. Versions only grow, so a
        /// timeline built from newer state never precedes one built from older state.
        public func precedes(_ later: Stamp) -> Bool {
            guard schemaVersion == later.schemaVersion, kind == later.kind, user == later.user,
                stateVersion <= later.stateVersion, (metricsVersion ?? 0) <= (later.metricsVersion ?? 0)
            else { return false }
            return stateVersion < later.stateVersion || (metricsVersion ?? 0) < (later.metricsVersion ?? 0)
        }
    }

    /// What a reader needs from a file to tell whether it is current: its stamp, and when its
    /// timeline runs out.
    public struct Header: Decodable, Equatable, Sendable {
        public var stamp: Stamp
        public var validUntil: Date?

        public init(stamp: Stamp, validUntil: Date?) {
            self.stamp = stamp
            self.validUntil = validUntil
        }

        private enum CodingKeys: String, CodingKey { case validUntil }

        public init(from decoder: any Decoder) throws {
            stamp = try Stamp(from: decoder)
            validUntil = try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(Date.self, forKey: .validUntil)
        }

        /// Whether a file with this header shows `wanted` at `now`: the same stamp, and a
        /// timeline that has not run out.
        public func isCurrent(for wanted: Stamp, at now: Date) -> Bool {
            stamp == wanted && validUntil.map { now < $0 } ?? true
        }
    }
}
