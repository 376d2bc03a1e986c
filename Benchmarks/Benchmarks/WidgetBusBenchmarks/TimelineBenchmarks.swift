import Benchmark
import Foundation
import WidgetBusProtocol
import WidgetDomain

/// The work each widget kind costs downstream of a state change: timeline-service builds its
/// timeline and encodes the `TimelineChanged` event (`TimelineResponder.timelineEvents`), and
/// snapshot-writer finds that timeline in the event and encodes the snapshot file around its
/// bytes (`PublishedTimelines.decodeEvent`, `SnapshotFiles.write`).
enum TimelineBenchmarks {
    static func register() {
        let codec = WireCodec()
        for kind in WidgetKind.allCases {
            Benchmark("Timeline/\(kind.rawValue)", configuration: .widgetBus) { _ in
                blackHole(try timelineChanged(kind, codec: codec))
            }
            let event = fixture("the \(kind.rawValue) TimelineChanged event") { try timelineChanged(kind, codec: codec) }
            Benchmark("Snapshot file/\(kind.rawValue)", configuration: .widgetBus) { benchmark in
                guard let timeline = JSONFieldScanner(event).object("body")?.object("timeline"),
                    let snapshot = WidgetSnapshot(timelineBody: timeline)
                else {
                    benchmark.error("the \(kind.rawValue) TimelineChanged event carries no readable timeline")
                    return
                }
                blackHole(try snapshot.encoded(with: codec))
            }
        }
    }

    /// The `TimelineChanged` event of `kind` for the user's shown state (and metrics, for a kind
    /// that shows them), built and encoded as timeline-service does for each changed widget.
    private static func timelineChanged(_ kind: WidgetKind, codec: WireCodec) throws -> Data {
        let state = UserStates.shown(by: kind.app)
        let timeline = TimelineBody(
            kind: kind, user: Fixtures.user, stateVersion: Fixtures.sequence,
            metricsVersion: kind.showsMetrics ? Fixtures.metricsVersion : nil, timeZone: Fixtures.timeZone.identifier,
            generatedAt: Fixtures.now,
            timeline: state.timeline(
                for: kind, now: Fixtures.now, timeZone: Fixtures.timeZone, metrics: kind.showsMetrics ? UserStates.metrics : nil))
        let event = Envelope(
            type: MessageType.timelineChanged.rawValue, user: Fixtures.user, sentAt: Fixtures.now,
            body: TimelineChangedBody(epoch: Fixtures.epoch, sequence: Fixtures.sequence, causedBy: Fixtures.requestID, timeline: timeline))
        return try codec.encode(event)
    }
}
