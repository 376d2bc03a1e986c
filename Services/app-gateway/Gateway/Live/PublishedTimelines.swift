import BusRuntime
import Foundation
import NIOCore
import Synchronization
import WidgetBusProtocol
import WidgetDomain

/// Which versions a published timeline was built from: what its `ETag` names, and what orders
/// two timelines of one widget. Versions only grow, and a refresh at the policy's date keeps them
/// and is built later, so a timeline is newer than another when any version or its build date is.
struct TimelineVersion: Equatable, Sendable {
    var state: UInt64
    var metrics: UInt64?
    var profile: UInt64
    var generatedAt: Date
    /// When the timeline runs out (its reload date); nil when it never does.
    var validUntil: Date?

    init?(_ timeline: JSONFieldScanner) {
        guard let state = timeline.unsignedInteger("stateVersion"), let profile = timeline.unsignedInteger("profileVersion"),
            let generatedAt = timeline.date("generatedAt")
        else { return nil }
        self.state = state
        metrics = timeline.unsignedInteger("metricsVersion")
        self.profile = profile
        self.generatedAt = generatedAt
        validUntil = timeline.date("validUntil")
    }

    /// Whether this timeline shows something `other` may not: a later version or build.
    func isNewer(than other: TimelineVersion) -> Bool {
        state > other.state || (metrics ?? 0) > (other.metrics ?? 0) || profile > other.profile || generatedAt > other.generatedAt
    }

    /// Whether both were built from the same versions (at different times, perhaps).
    func hasSameVersions(as other: TimelineVersion) -> Bool {
        state == other.state && metrics == other.metrics && profile == other.profile
    }

    /// The strong `ETag` of `user`'s timeline: the versions it was built from, when it was built,
    /// to the millisecond, and whose it is (``EntityTag``).
    func entityTag(for user: String) -> String { EntityTag(self, user: user).text }
}

/// What a timeline's `ETag` says:
/// `"s<state>-m<metrics or x>-p<profile>-g<built, ms since 1970>-u<user digest>"`.
///
/// The user digest (FNV-1a of the user id, 16 hex digits) keeps one user's tag from matching
/// another's timeline of the same versions: two users who each tapped once are both at `s1`, and
/// a cache on a phone that changed accounts would otherwise be told its other user's copy is
/// current. It tells users apart; it hides nothing (the tag goes only to that user).
struct EntityTag: Equatable, Sendable {
    var state: UInt64
    var metrics: UInt64?
    var profile: UInt64
    var builtAtMilliseconds: Int64
    var user: UInt64

    init(_ version: TimelineVersion, user: String) {
        state = version.state
        metrics = version.metrics
        profile = version.profile
        builtAtMilliseconds = Int64((version.generatedAt.timeIntervalSince1970 * 1000).rounded(.down))
        self.user = Self.digest(user)
    }

    /// Reads one tag as ``text`` writes it (weak or strong); nil for anything else.
    init?(_ text: some StringProtocol) {
        var text = Substring(text)
        if text.hasPrefix("W/") { text = text.dropFirst(2) }
        guard text.count > 2, text.first == "\"", text.last == "\"" else { return nil }
        let parts = text.dropFirst().dropLast().split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0].first == "s", parts[1].first == "m", parts[2].first == "p", parts[3].first == "g", parts[4].first == "u",
            let state = UInt64(parts[0].dropFirst()), let profile = UInt64(parts[2].dropFirst()),
            let built = Int64(parts[3].dropFirst()),
            parts[4].count == 17, parts[4].dropFirst().allSatisfy({ ("0"..."9").contains($0) || ("a"..."f").contains($0) }),
            let user = UInt64(parts[4].dropFirst(), radix: 16)
        else { return nil }
        let metrics = parts[1].dropFirst()
        guard metrics == "x" || UInt64(metrics) != nil else { return nil }
        (self.state, self.metrics, self.profile, builtAtMilliseconds, self.user) = (state, metrics == "x" ? nil : UInt64(metrics), profile, built, user)
    }

    var text: String {
        let digest = String(user, radix: 16)
        return "\"s\(state)-m\(metrics.map(String.init) ?? "x")-p\(profile)-g\(builtAtMilliseconds)-u\(String(repeating: "0", count: 16 - digest.count))\(digest)\""
    }

    /// Whether a timeline with this tag is `user`'s and shows what `edition` shows: the same
    /// versions, built after `since` (the policy date the edition's content starts at, if it is a
    /// refresh).
    func shows(_ edition: TimelineVersion, of user: String, since: Date?) -> Bool {
        self.user == Self.digest(user) && state == edition.state && metrics == edition.metrics && profile == edition.profile
            && since.map { Double(builtAtMilliseconds) >= ($0.timeIntervalSince1970 * 1000).rounded(.down) } ?? true
    }

    /// FNV-1a, 64 bits, of the user id's UTF-8: the same in every gateway and every run.
    static func digest(_ user: String) -> UInt64 {
        user.utf8.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01b3 }
    }
}

/// One change to a user's widget, ready for their event streams: encoded once, on the bus thread,
/// for every stream of that user.
struct LiveTimeline: Sendable {
    var user: String
    var kind: WidgetKind
    var version: TimelineVersion
    /// Where in timeline-service's sequence the widget changed, which is its event id. A stream
    /// writes its changes in this order, so the last id a client received covers every change
    /// before it, and a resume from it misses none.
    var position: SequencePosition
    /// The Server-Sent Events frame but its `id` line: `event: timeline` and the timeline as `data`.
    var frame: Data

    /// `timeline` (a `TimelineBody`, as encoded), changed at `position`.
    init(user: String, kind: WidgetKind, version: TimelineVersion, timeline: some Collection<UInt8>, changedAt position: SequencePosition) {
        var frame = Data("event: timeline\ndata: ".utf8)
        frame.append(contentsOf: timeline)
        frame.append(contentsOf: "\n\n".utf8)
        self.init(user: user, kind: kind, version: version, position: position, frame: frame)
    }

    init(user: String, kind: WidgetKind, version: TimelineVersion, position: SequencePosition, frame: Data) {
        (self.user, self.kind, self.version, self.position, self.frame) = (user, kind, version, position, frame)
    }

    /// `changes` (in order) as the stream writes them. Each carries its id, but for changes at the
    /// same position (a catch-up of widgets a snapshot brought): only the last of those does, the
    /// others keep the id before them (as Server-Sent Events do without an `id` line), so a client
    /// cut off among them resumes before all of them.
    static func frames(_ changes: [LiveTimeline]) -> ByteBuffer {
        var frames = ByteBuffer()
        for (index, change) in changes.enumerated() {
            if index == changes.count - 1 || changes[index + 1].position != change.position {
                frames.writeString("id: \(EventStreamPosition(change.position).text)\n")
            }
            frames.writeBytes(change.frame)
        }
        return frames
    }
}

/// Where an event stream stands in timeline-service's sequence: an SSE event id,
/// `<epoch>-<sequence>`, which a client sends back as `Last-Event-ID` to resume.
struct EventStreamPosition: Equatable, Sendable {
    var position: SequencePosition

    init(_ position: SequencePosition) {
        self.position = position
    }

    /// Reads `<16 hex digits>-<decimal>`; nil for anything else.
    init?(text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 16, parts[0].allSatisfy(\.isHexDigit), parts[0] == parts[0].lowercased(),
            !parts[1].isEmpty, parts[1].count <= 20, parts[1].allSatisfy({ $0 >= "0" && $0 <= "9" }), let sequence = UInt64(parts[1])
        else { return nil }
        position = SequencePosition(epoch: String(parts[0]), sequence: sequence)
    }

    var text: String { "\(position.epoch)-\(position.sequence)" }
}

/// What app-gateway knows of the timelines timeline-service has published: for each widget, the
/// versions of its latest timeline and where in the sequence it changed. Written by the bus
/// thread (``PublishedTimelineFollower``), read by requests: a conditional `GET` is answered
/// `304` from here without a round trip, and an event stream that resumes learns here which of
/// its user's widgets changed while it was away. It holds no timeline, only a few numbers per
/// widget.
final class PublishedTimelines: Sendable {
    struct Widget: Sendable {
        var version: TimelineVersion
        /// The sequence of the event (or snapshot) that last changed it.
        var changedAt: UInt64
        /// When the content of this edition starts, if it is a refresh of the same versions: the
        /// date the one before ran out. A timeline of these versions built earlier shows the
        /// content before it.
        var contentSince: Date?
    }

    private struct Contents {
        /// Where the follower stands: nil until its first snapshot.
        var position: SequencePosition?
        var widgets: [String: [WidgetKind: Widget]] = [:]
        var count = 0
    }

    private let contents = Mutex(Contents())

    /// The latest published edition of `user`'s widget of `kind`, if any.
    func edition(user: String, kind: WidgetKind) -> Widget? {
        contents.withLock { $0.widgets[user]?[kind] }
    }

    var position: SequencePosition? { contents.withLock { $0.position } }
    var count: Int { contents.withLock { $0.count } }

    /// The kinds of `user`'s widgets to send a stream that resumes from `lastSeen`: those changed
    /// after it, or every kind the user has when `lastSeen` is of another epoch (timeline-service
    /// restarted) or unknown. Also returns where the follower stands, the id of what is sent.
    func changed(user: String, since lastSeen: EventStreamPosition?) -> [(kind: WidgetKind, changedAt: SequencePosition)] {
        contents.withLock { contents in
            guard let epoch = contents.position?.epoch else { return [] }
            let widgets = contents.widgets[user] ?? [:]
            let since = lastSeen.flatMap { $0.position.epoch == epoch ? $0.position.sequence : nil }
            return widgets.filter { widget in since.map { widget.value.changedAt > $0 } ?? true }
                .map { (kind: $0.key, changedAt: SequencePosition(epoch: epoch, sequence: $0.value.changedAt)) }
                .sorted { $0.changedAt.sequence < $1.changedAt.sequence }
        }
    }

    /// Records `timeline` of `user`'s `kind` as changed at `position`; false when it shows
    /// nothing newer than what is recorded (a snapshot repeating what events brought).
    fileprivate func record(user: String, kind: WidgetKind, version: TimelineVersion, at position: SequencePosition) -> Bool {
        contents.withLock { contents in
            contents.position = position
            let known = contents.widgets[user]?[kind]
            if let known, !version.isNewer(than: known.version) { return false }
            if known == nil { contents.count += 1 }
            var contentSince: Date?
            if let known, known.version.hasSameVersions(as: version) {
                // A refresh once the edition before ran out; otherwise the same content again.
                contentSince = known.version.validUntil.flatMap { $0 <= version.generatedAt ? $0 : nil } ?? known.contentSince
            }
            contents.widgets[user, default: [:]][kind] = Widget(version: version, changedAt: position.sequence, contentSince: contentSince)
            return true
        }
    }

    /// Starts over at `position` (a snapshot of another epoch): what was recorded is of a
    /// sequence that no longer exists.
    fileprivate func reset(at position: SequencePosition) {
        contents.withLock { $0 = Contents(position: position) }
    }
}

/// timeline-service's published timelines as app-gateway follows them (``SequencedReplica``:
/// `TimelineChanged` events, a `TimelineSnapshotReply` at start, after a gap and on a new epoch).
/// What each brings is recorded in ``PublishedTimelines`` and handed on as ``LiveTimeline``s:
/// after a gap the snapshot's timelines that differ from what was recorded reach the streams, so
/// a stream misses nothing the gateway's own subscription missed.
struct PublishedTimelineFollower: ReplicaModel {
    struct Event: Sendable {
        var position: SequencePosition
        var timeline: JSONFieldScanner
    }

    struct Snapshot: Sendable {
        var position: SequencePosition
        var timelines: [JSONFieldScanner]
    }

    let published: PublishedTimelines

    var count: Int { published.count }

    static var topicPrefix: String { Topic.timelinePrefix }

    func decodeEvent(_ payload: Data, codec: WireCodec) -> Event? {
        TimelineMessages.event(payload).map { Event(position: $0.position, timeline: $0.timeline) }
    }

    func decodeSnapshotReply(_ payload: Data, codec: WireCodec) -> (inReplyTo: String?, snapshot: Snapshot)? {
        TimelineMessages.snapshot(payload).map { ($0.inReplyTo, Snapshot(position: $0.position, timelines: $0.timelines)) }
    }

    static func position(of event: Event) -> SequencePosition { event.position }
    static func position(of snapshot: Snapshot) -> SequencePosition { snapshot.position }

    mutating func apply(_ event: Event) -> [LiveTimeline] {
        live(event.timeline, at: event.position).map { [$0] } ?? []
    }

    mutating func replace(with snapshot: Snapshot) -> [LiveTimeline] {
        if published.position?.epoch != snapshot.position.epoch { published.reset(at: snapshot.position) }
        return snapshot.timelines.compactMap { live($0, at: snapshot.position) }
    }

    private func live(_ timeline: JSONFieldScanner, at position: SequencePosition) -> LiveTimeline? {
        guard let user = timeline.string("user"), let kind = timeline.string("kind").flatMap(WidgetKind.init(rawValue:)),
            let version = TimelineVersion(timeline),
            published.record(user: user, kind: kind, version: version, at: position)
        else { return nil }
        return LiveTimeline(user: user, kind: kind, version: version, timeline: timeline.encoded, changedAt: position)
    }
}
