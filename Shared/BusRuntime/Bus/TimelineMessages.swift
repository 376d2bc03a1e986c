import Foundation
import WidgetBusProtocol

/// timeline-service's `TimelineChanged` events and `TimelineSnapshotReply`s as its followers read
/// them: where each stands in the publisher's sequence and the timelines it carries, scanned, not
/// decoded (``JSONFieldScanner``). Each follower makes of a timeline what it needs.
public enum TimelineMessages {
    /// A `TimelineChanged` event: its position and its envelope (for its trace), and its timeline;
    /// nil when it is not one.
    public static func event(_ payload: Data) -> (position: SequencePosition, envelope: JSONFieldScanner, timeline: JSONFieldScanner)? {
        let envelope = JSONFieldScanner(payload)
        guard let body = envelope.object("body"), let position = position(in: body), let timeline = body.object("timeline") else {
            return nil
        }
        return (position, envelope, timeline)
    }

    /// A `TimelineSnapshotReply`: the request it answers, its position and its timelines; nil when
    /// it is not one.
    public static func snapshot(_ payload: Data) -> (inReplyTo: String?, position: SequencePosition, timelines: [JSONFieldScanner])? {
        let envelope = JSONFieldScanner(payload)
        guard envelope.string("type") == MessageType.timelineSnapshotReply.rawValue, let body = envelope.object("body"),
            let position = position(in: body), let timelines = body.objects(inArray: "timelines")
        else { return nil }
        return (envelope.string("inReplyTo"), position, timelines)
    }

    /// A reply to a `TimelineRequest`: the request it answers, and its timeline when it is a
    /// `TimelineReply` (nil for an error); nil when it answers nothing.
    public static func reply(_ payload: Data) -> (inReplyTo: String, timeline: JSONFieldScanner?)? {
        let envelope = JSONFieldScanner(payload)
        guard let inReplyTo = envelope.string("inReplyTo") else { return nil }
        let timeline = envelope.string("type") == MessageType.timelineReply.rawValue ? envelope.object("body") : nil
        return (inReplyTo, timeline)
    }

    private static func position(in body: JSONFieldScanner) -> SequencePosition? {
        guard let epoch = body.string("epoch"), let sequence = body.unsignedInteger("sequence") else { return nil }
        return SequencePosition(epoch: epoch, sequence: sequence)
    }
}
