import Foundation
import Logging
import Testing
import WidgetBusProtocol
import WidgetBusTestSupport
import WidgetDomain
import ZeroMQ

@testable import ServiceSupport
@testable import BusRuntime
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

        /// `waitingKB`: snapshot-writer's budget of waiting timelines (0: every timeline is fetched).
        init(waitingKB: Int = 16_384) throws {
            bus = try Bus(clock: clock)
            let run = UUID().uuidString
            let environment = [
                BusEndpoint.timelineEvents.variable: "inproc://timeline-events-\(run)", BusEndpoint.timelines.variable: "inproc://timelines-\(run)",
                EnvironmentSetting.snapshotDirectory.variable: folder.path, EnvironmentSetting.snapshotCoalesceDelay.variable: "0",
                EnvironmentSetting.snapshotWaitingBudget.variable: "\(waitingKB)",
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

        func timeline(_ user: String, version: UInt64, timeZone: String = "UTC") -> TimelineBody {
            TimelineBody(
                kind: .tensionCheck, user: user, stateVersion: version, timeZone: timeZone, generatedAt: clock.now,
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

        /// A `TimelineRequest` snapshot-writer sent to timeline-service, and its asker's route.
        struct TimelineFetch {
            let message: RoutedMessage
            let id: String
            let user: String
        }

        /// The timeline requests that have reached timeline-service's endpoint so far.
        func timelineFetches() throws -> [TimelineFetch] {
            var fetches: [TimelineFetch] = []
            while let frames = try snapshots.receiveMessage(dontWait: true) {
                let message = RoutedMessage(frames: frames)
                let envelope = JSONFieldScanner(try #require(message.payload))
                #expect(envelope.string("type") == MessageType.timelineRequest.rawValue)
                #expect(envelope.object("body")?.string("kind") == WidgetKind.tensionCheck.rawValue)
                fetches.append(TimelineFetch(message: message, id: try #require(envelope.string("id")), user: try #require(envelope.string("user"))))
            }
            return fetches
        }

        /// Runs turns until `count` timeline requests have reached timeline-service's endpoint,
        /// sending `frames` on every turn if given (until the subscription has reached the
        /// publisher: a copy that arrives later has an old sequence and is ignored).
        func awaitFetches(_ count: Int = 1, sending frames: [Data]? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws -> [TimelineFetch] {
            var fetches: [TimelineFetch] = []
            try turns(until: {
                if let frames { try events.send(frames) }
                fetches += try timelineFetches()
                return fetches.count >= count
            }, sourceLocation: sourceLocation)
            return fetches
        }

        /// Answers `fetch` as timeline-service does, with `timeline`.
        func answer(_ fetch: TimelineFetch, with timeline: TimelineBody) throws {
            try snapshots.send(fetch.message.reply(try codec.reply(to: fetch.id, user: fetch.user, type: .timelineReply, body: timeline)))
        }

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

    /// Memory bounded by a budget, not by the files: past it a change waits as its stamp only, and
    /// its timeline is asked of timeline-service when its write falls due — once per file, however
    /// many changes came before.
    @Test func aTimelineTheBudgetHasNoRoomForIsFetchedOncePerFileWhenItsWriteFallsDue() throws {
        let harness = try Harness(waitingKB: 0)
        try harness.answerSnapshotRequest(sequence: 1, timelines: [])
        var fetches = try harness.awaitFetches(sending: try harness.event("ann", version: 2, sequence: 2))
        #expect(fetches.map(\.user) == ["ann"])
        #expect(harness.fileVersion("ann") == nil)  // nothing to write until the timeline comes
        try harness.answer(fetches[0], with: harness.timeline("ann", version: 2))
        try harness.turns { harness.fileVersion("ann") == 2 }

        // Twenty changes to three files: three fetches, each answered with the last version.
        let users = ["bob", "cem", "dia"]
        var sequence: UInt64 = 2
        for version in 3...22 as ClosedRange<UInt64> {
            sequence += 1
            try harness.events.send(try harness.event(users[Int(version) % 3], version: version, sequence: sequence))
        }
        fetches = try harness.awaitFetches(users.count)
        #expect(Set(fetches.map(\.user)) == Set(users))
        for fetch in fetches {
            let last = (3...22 as ClosedRange<UInt64>).last { users[Int($0) % 3] == fetch.user }!
            try harness.answer(fetch, with: harness.timeline(fetch.user, version: last))
        }
        try harness.turns { users.map(harness.fileVersion) == [21, 22, 20] }
        #expect(try harness.timelineFetches().isEmpty)
    }

    /// Nothing goes backwards: timeline-service answers a fetch with the timeline it has now, which
    /// may be newer than the events snapshot-writer has read. The events still on their way, of
    /// older versions, are then not written over it.
    @Test func aFetchedTimelineNewerThanTheEventsIsNotOverwrittenByTheOlderEventsStillOnTheirWay() throws {
        let harness = try Harness(waitingKB: 0)
        try harness.answerSnapshotRequest(sequence: 1, timelines: [])
        var fetches = try harness.awaitFetches(sending: try harness.event("ann", version: 2, sequence: 2))
        try harness.answer(fetches[0], with: harness.timeline("ann", version: 4))
        try harness.turns { harness.fileVersion("ann") == 4 }

        // Versions 3 and 4 arrive after it, then a change to bob: only bob's timeline is asked for.
        try harness.events.send(try harness.event("ann", version: 3, sequence: 3))
        try harness.events.send(try harness.event("ann", version: 4, sequence: 4))
        try harness.events.send(try harness.event("bob", version: 5, sequence: 5))
        fetches = try harness.awaitFetches()
        #expect(fetches.map(\.user) == ["bob"])
        try harness.answer(fetches[0], with: harness.timeline("bob", version: 5))
        try harness.turns { harness.fileVersion("bob") == 5 }
        #expect(harness.fileVersion("ann") == 4)

        // A later change to ann is fetched and written as usual.
        try harness.events.send(try harness.event("ann", version: 6, sequence: 6))
        fetches = try harness.awaitFetches()
        #expect(fetches.map(\.user) == ["ann"])
        try harness.answer(fetches[0], with: harness.timeline("ann", version: 6))
        try harness.turns { harness.fileVersion("ann") == 6 }
    }

    /// A zone change keeps the versions, so a fetched timeline of later versions in another zone
    /// cannot be ordered against the events still on their way: it is not written, and the file
    /// is asked again.
    @Test func aFetchedTimelineOfAnotherZoneIsNotWrittenAndTheFileIsAskedAgain() throws {
        let harness = try Harness(waitingKB: 0)
        try harness.answerSnapshotRequest(sequence: 1, timelines: [])
        var fetches = try harness.awaitFetches(sending: try harness.event("ann", version: 2, sequence: 2))
        try harness.answer(fetches[0], with: harness.timeline("ann", version: 3, timeZone: "Europe/Paris"))
        fetches = try harness.awaitFetches()
        #expect(harness.fileVersion("ann") == nil)
        try harness.answer(fetches[0], with: harness.timeline("ann", version: 2))
        try harness.turns { harness.fileVersion("ann") == 2 }
    }

    /// A fetch timeline-service does not answer (stopped, or not synced yet) is asked again.
    @Test func aFetchNotAnsweredIsAskedAgain() throws {
        let harness = try Harness(waitingKB: 0)
        try harness.answerSnapshotRequest(sequence: 1, timelines: [])
        let fetches = try harness.awaitFetches(2, sending: try harness.event("ann", version: 2, sequence: 2))  // the first left unanswered
        #expect(fetches[0].id != fetches[1].id)
        try harness.answer(fetches[1], with: harness.timeline("ann", version: 2))
        try harness.turns { harness.fileVersion("ann") == 2 }
    }

    @Test func aSecondWriterOfTheSameRootRefusesToStartUntilTheFirstIsGone() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("snapshot-root-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        var first: SnapshotFiles? = try SnapshotFiles(root: root, waitingBudget: 1 << 20, codec: WireCodec(), logger: Logger(label: "test"))
        #expect(throws: SnapshotFiles.RootUnavailable.self) {
            try SnapshotFiles(root: root, waitingBudget: 1 << 20, codec: WireCodec(), logger: Logger(label: "test"))
        }
        #expect(first != nil)
        first = nil
        _ = try SnapshotFiles(root: root, waitingBudget: 1 << 20, codec: WireCodec(), logger: Logger(label: "test"))
    }
}

/// A batch is sized from the speed of the last one, so a file waits for the files of the batch
/// ahead of it about the same time however slow they are to write.
@Suite struct WriteBatchSizeTests {
    @Test func aBatchHoldsAsManyFilesAsTheLastBatchWroteInItsTargetTime() {
        var size = WriteBatchSize()
        #expect(size.files == 1_024)
        size.wrote(1_024, in: .milliseconds(20_480))  // 20 ms a file: new files on a slow disk
        #expect(size.files == 16)  // 200 ms holds 10; never fewer than 16, to share the barriers
        size.wrote(16, in: .milliseconds(16))  // 1 ms a file
        #expect(size.files == 200)
        size.wrote(200, in: .milliseconds(20))  // 0.1 ms a file: 2,000 would fit
        #expect(size.files == 1_024)
        size.wrote(0, in: .milliseconds(30))  // nothing written (every file waited for its fetch)
        #expect(size.files == 1_024)
    }
}
