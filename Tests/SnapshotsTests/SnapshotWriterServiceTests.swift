import Foundation
import Logging
import Testing
import WidgetBusProtocol
import WidgetBusTestSupport
import WidgetDomain
import ZeroMQ

@testable import ServiceSupport
@testable import Snapshots

/// snapshot-writer whole, in-process: its own `start(on:)` on a bus with `inproc://` endpoints and
/// a clock set by hand, the test playing timeline-service, the files in a temporary folder.
@Suite struct SnapshotWriterServiceTests {
    final class Harness {
        let clock = ManualClock()
        let bus: Bus
        let codec = WireCodec()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("snapshot-writer-\(UUID().uuidString)")
        /// Plays timeline-service: its timeline events and its timeline snapshots.
        let events: ZMQSocket
        let snapshots: ZMQSocket

        init() throws {
            bus = try Bus(clock: clock)
            let run = UUID().uuidString
            let environment = [
                BusEndpoint.timelineEvents.variable: "inproc://timeline-events-\(run)", BusEndpoint.timelines.variable: "inproc://timelines-\(run)",
                EnvironmentSetting.snapshotDirectory.variable: folder.path, EnvironmentSetting.snapshotCoalesceDelay.variable: "0",
            ]
            events = try .peer(.pub, on: bus.context, binding: environment[BusEndpoint.timelineEvents.variable]!)
            snapshots = try .peer(.router, on: bus.context, binding: environment[BusEndpoint.timelines.variable]!)
            try SnapshotWriterService(configuration: .init(environment: environment), logger: Logger(label: "test")).start(on: bus)
        }

        deinit {
            events.close()
            snapshots.close()
            bus.close()
            try? FileManager.default.removeItem(at: folder)
        }

        /// Runs turns, moving the clock a tenth of a second each, until `condition` holds.
        func turns(until condition: () throws -> Bool, sourceLocation: SourceLocation = #_sourceLocation) throws {
            #expect(try bus.turns(moving: clock, by: 0.1, until: condition), sourceLocation: sourceLocation)
        }

        func timeline(_ user: String, version: UInt64) -> TimelineBody {
            TimelineBody(
                kind: .tensionCheck, user: user, stateVersion: version, timeZone: "UTC", generatedAt: clock.now,
                timeline: WidgetState.initial(for: .tensionCheck).timeline(for: .tensionCheck, now: clock.now, timeZone: .gmt))
        }

        /// The state version the file of `user`'s Tension Check widget shows; nil without a file.
        func fileVersion(_ user: String) -> UInt64? {
            let file = folder.appendingPathComponent(user).appendingPathComponent("\(WidgetKind.tensionCheck.rawValue).json")
            return (try? Data(contentsOf: file)).flatMap { JSONFieldScanner($0).unsignedInteger("stateVersion") }
        }
    }

    @Test func writesWhatTimelineServicePublishedFromItsSnapshotOnAndFromEachEventAfter() throws {
        let harness = try Harness()
        var request: RoutedMessage?
        try harness.turns {
            request = try harness.snapshots.receiveMessage(dontWait: true).map(RoutedMessage.init(frames:))
            return request != nil
        }
        let message = try #require(request)
        let payload = try #require(message.payload)
        let id = try #require(JSONFieldScanner(payload).string("id"))
        let snapshot = TimelineSnapshotBody(epoch: "00000000000000c1", sequence: 3, timelines: [harness.timeline("ann", version: 3)])
        try harness.snapshots.send(
            message.reply(try harness.codec.reply(to: id, user: nil, type: .timelineSnapshotReply, body: snapshot)))
        try harness.turns { harness.fileVersion("ann") == 3 }

        // The event after the snapshot, sent until the subscription has reached the publisher (a
        // copy that arrives later has an old sequence and is ignored).
        let event = Envelope(
            type: MessageType.timelineChanged.rawValue, user: "ann",
            body: TimelineChangedBody(epoch: "00000000000000c1", sequence: 4, causedBy: "intent-4", timeline: harness.timeline("ann", version: 4)))
        let frames = [Data(Topic.timeline(kind: .tensionCheck, user: "ann").utf8), try harness.codec.encode(event)]
        try harness.turns {
            try harness.events.send(frames)
            return harness.fileVersion("ann") == 4
        }
    }
}
