import BusRuntime
import Foundation
import W3CTraceContext
import WidgetBusProtocol

/// A timeline timeline-service published, as its file is to show it, and the trace of the change
/// behind it (none for a refresh, or from a snapshot).
struct PublishedTimeline: Sendable {
    var snapshot: WidgetSnapshot
    var trace: TraceContext?
}

/// timeline-service's published timelines as snapshot-writer follows them (``SequencedReplica``:
/// `TimelineChanged` events, and a `TimelineSnapshotReply` at start, on a gap or on a new
/// epoch). It keeps only which widgets timeline-service publishes — what each file reflects is
/// ``SnapshotFiles``'s to know — and hands each timeline on as a ``WidgetSnapshot`` whose bytes
/// are the ones timeline-service encoded: snapshot-writer builds no timeline and decodes no entry.
struct PublishedTimelines: ReplicaModel {
    /// What the writer is handed: one timeline as it is published, or every timeline after a
    /// re-sync — the files of the widgets not among them are no longer followed, and those
    /// among them are read from the disk again.
    enum Change: Sendable {
        case published(PublishedTimeline)
        case resynced([WidgetSnapshot])
    }

    struct Event: Sendable {
        var position: SequencePosition
        var timeline: PublishedTimeline
    }

    struct Snapshot: Sendable {
        var position: SequencePosition
        var snapshots: [WidgetSnapshot]
    }

    /// Every widget timeline-service publishes.
    private var widgets: Set<UserWidget> = []

    var count: Int { widgets.count }

    static var topicPrefix: String { Topic.timelinePrefix }

    /// An event whose timeline cannot be read is not applied: the engine logs it, and the gap it
    /// leaves in the sequence brings a fresh snapshot.
    func decodeEvent(_ payload: Data, codec: WireCodec) -> Event? {
        guard let event = TimelineMessages.event(payload), let snapshot = WidgetSnapshot(timelineBody: event.timeline) else { return nil }
        // Each lookup skips the timeline before it: the trace state only when there is a trace.
        let trace = event.envelope.string("traceparent").flatMap {
            TraceContext(traceparent: $0, tracestate: event.envelope.string("tracestate"))
        }
        return Event(position: event.position, timeline: PublishedTimeline(snapshot: snapshot, trace: trace))
    }

    func decodeSnapshotReply(_ payload: Data, codec: WireCodec) -> (inReplyTo: String?, snapshot: Snapshot)? {
        guard let reply = TimelineMessages.snapshot(payload) else { return nil }
        return (reply.inReplyTo, Snapshot(position: reply.position, snapshots: reply.timelines.compactMap(WidgetSnapshot.init(timelineBody:))))
    }

    static func position(of event: Event) -> SequencePosition { event.position }
    static func position(of snapshot: Snapshot) -> SequencePosition { snapshot.position }

    mutating func apply(_ event: Event) -> [Change] {
        widgets.insert(Self.widget(of: event.timeline.snapshot))
        return [.published(event.timeline)]
    }

    /// Every timeline of the snapshot, even none: which files differ is for the disk to say.
    mutating func replace(with snapshot: Snapshot) -> [Change] {
        widgets = Set(snapshot.snapshots.map(Self.widget(of:)))
        return [.resynced(snapshot.snapshots)]
    }

    private static func widget(of snapshot: WidgetSnapshot) -> UserWidget {
        UserWidget(user: snapshot.stamp.user, kind: snapshot.stamp.kind)
    }
}
