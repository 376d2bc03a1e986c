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

        /// Answers snapshot-writer's request for timeline-service's snapshot with `timelines` at
        /// `sequence` of one epoch.
        func answerSnapshotRequest(sequence: UInt64, timelines: [TimelineBody]) throws {
            var request: RoutedMessage?
            try turns {
                request = try snapshots.receiveMessage(dontWait: true).map(RoutedMessage.init(frames:))
                return request != nil
            }
            let message = try #require(request)
            let payload = try #require(message.payload)
            let id = try #require(JSONFieldScanner(payload).string("id"))
            let snapshot = TimelineSnapshotBody(epoch: epoch, sequence: sequence, timelines: timelines)
            try snapshots.send(message.reply(try codec.reply(to: id, user: nil, type: .timelineSnapshotReply, body: snapshot)))
        }

        let epoch = "00000000000000c1"

        /// timeline-service's `TimelineChanged` event of `user`'s Tension Check timeline at `version`.
        func event(_ user: String, version: UInt64, sequence: UInt64) throws -> [Data] {
            let event = Envelope(
                type: MessageType.timelineChanged.rawValue, user: user,
                body: TimelineChangedBody(epoch: epoch, sequence: sequence, causedBy: "intent-\(sequence)", timeline: timeline(user, version: version)))
            return [Data(Topic.timeline(kind: .tensionCheck, user: user).utf8), try codec.encode(event)]
        }

        /// The state version the file of `user`'s Tension Check widget shows; nil without a file.
        func fileVersion(_ user: String) -> UInt64? {
            let file = folder.appendingPathComponent(user).appendingPathComponent("\(WidgetKind.tensionCheck.rawValue).json")
            return (try? Data(contentsOf: file)).flatMap { JSONFieldScanner($0).unsignedInteger("stateVersion") }
        }
    }

    @Test func writesWhatTimelineServicePublishedFromItsSnapshotOnAndFromEachEventAfter() throws {
        let harness = try Harness()
        try harness.answerSnapshotRequest(sequence: 3, timelines: [harness.timeline("ann", version: 3)])
        try harness.turns { harness.fileVersion("ann") == 3 }

        // The event after the snapshot, sent until the subscription has reached the publisher (a
        // copy that arrives later has an old sequence and is ignored).
        let frames = try harness.event("ann", version: 4, sequence: 4)
        try harness.turns {
            try harness.events.send(frames)
            return harness.fileVersion("ann") == 4
        }
    }

    /// Memory bounded by the files, not by the load: a flood of events is taken from the socket in
    /// one turn and waits in the writer as the newest timeline of each file, so what is written
    /// next (here: on stop) is already the last version, however many events came before it.
    @Test func aFloodOfEventsIsTakenInOneTurnAndWaitsAsTheNewestTimelineOfEachFile() throws {
        let harness = try Harness()
        try harness.answerSnapshotRequest(sequence: 1, timelines: [])
        let probe = try harness.event("probe", version: 1, sequence: 2)
        try harness.turns {
            try harness.events.send(probe)
            return harness.fileVersion("probe") == 1
        }
        let users = (0..<10).map { "user-\($0)" }
        let rounds: UInt64 = 300  // 3,000 events, nearly twelve turns' worth at the bus's default batch
        var sequence: UInt64 = 2
        for version in 1...rounds {
            for user in users {
                sequence += 1
                try harness.events.send(try harness.event(user, version: version, sequence: sequence))
            }
        }
        harness.clock.advance(by: 1)  // past the subscription's rest after the probe
        try harness.bus.turn(waitingAtMost: 0.1)
        let stop = StopSignal()
        stop.request()
        try harness.bus.run(until: stop)  // no more turns: the stop steps write what waits
        #expect(users.map(harness.fileVersion) == Array(repeating: rounds, count: users.count))
    }

    @Test func aSecondWriterOfTheSameRootRefusesToStartUntilTheFirstIsGone() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("snapshot-root-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        var first: SnapshotFiles? = try SnapshotFiles(root: root, codec: WireCodec(), logger: Logger(label: "test"))
        #expect(throws: SnapshotFiles.RootUnavailable.self) {
            try SnapshotFiles(root: root, codec: WireCodec(), logger: Logger(label: "test"))
        }
        #expect(first != nil)
        first = nil
        _ = try SnapshotFiles(root: root, codec: WireCodec(), logger: Logger(label: "test"))
    }
}
