import BusRuntime
import Foundation
import WidgetBusProtocol
import WidgetDomain

/// timeline-service's published timelines as push-gateway follows them (``SequencedReplica``:
/// `TimelineChanged` events, a `TimelineSnapshotReply` at start, on a gap and on a new epoch).
/// Each timeline is handed on scanned, not read: only the widgets of users with a push token are
/// worth reading entry by entry (``ShownTimeline``), which is the service's to decide. What each
/// widget showed before is the planner's to remember; this model holds only which widgets there are.
struct PublishedWidgetTimelines: ReplicaModel {
    struct Published: Sendable {
        var widget: UserWidget
        /// The `TimelineBody`, as timeline-service encoded it.
        var timeline: JSONFieldScanner
    }

    struct Event: Sendable {
        var position: SequencePosition
        var published: Published
    }

    struct Snapshot: Sendable {
        var position: SequencePosition
        var timelines: [Published]
    }

    private var widgets: Set<UserWidget> = []

    var count: Int { widgets.count }

    static var topicPrefix: String { Topic.timelinePrefix }

    /// An event whose timeline cannot be read is not applied: the engine logs it, and the gap it
    /// leaves brings a fresh snapshot.
    func decodeEvent(_ payload: Data, codec: WireCodec) -> Event? {
        guard let event = TimelineMessages.event(payload), let published = Self.published(event.timeline) else { return nil }
        return Event(position: event.position, published: published)
    }

    func decodeSnapshotReply(_ payload: Data, codec: WireCodec) -> (inReplyTo: String?, snapshot: Snapshot)? {
        guard let reply = TimelineMessages.snapshot(payload) else { return nil }
        return (reply.inReplyTo, Snapshot(position: reply.position, timelines: reply.timelines.compactMap(Self.published)))
    }

    static func position(of event: Event) -> SequencePosition { event.position }
    static func position(of snapshot: Snapshot) -> SequencePosition { snapshot.position }

    mutating func apply(_ event: Event) -> [Published] {
        widgets.insert(event.published.widget)
        return [event.published]
    }

    /// Every timeline of the snapshot: which of them changed is the planner's to say.
    mutating func replace(with snapshot: Snapshot) -> [Published] {
        widgets = Set(snapshot.timelines.map(\.widget))
        return snapshot.timelines
    }

    private static func published(_ timeline: JSONFieldScanner) -> Published? {
        guard let user = timeline.string("user"), let kind = timeline.string("kind").flatMap(WidgetKind.init(rawValue:)) else { return nil }
        return Published(widget: UserWidget(user: user, kind: kind), timeline: timeline)
    }
}
