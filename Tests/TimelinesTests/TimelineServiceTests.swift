import Foundation
import Logging
import Testing
import W3CTraceContext
import WidgetBusProtocol
import WidgetBusTestSupport
import WidgetDomain
import ZeroMQ

@testable import ServiceSupport
@testable import BusRuntime
@testable import Timelines

/// timeline-service whole, in-process: the service's own `start(on:)` on a bus with a clock set
/// by hand, every endpoint `inproc://`, and the test playing intent-handler and metrics-ingest
/// beside it. No process, no port, no waiting for a timeline to run out.
@Suite struct TimelineServiceTests {
    final class Harness {
        let clock = ManualClock()
        let bus: Bus
        let codec = WireCodec()
        let endpoints: [String: String]
        let statePublisher: ZMQSocket
        let stateSnapshots: ZMQSocket
        let metricsPublisher: ZMQSocket
        let metricsSnapshots: ZMQSocket
        /// Follows the service's timeline events.
        let timelines: ZMQSocket
        /// Asks the service for timelines.
        let client: ZMQSocket

        init() throws {
            bus = try Bus(clock: clock)
            let run = UUID().uuidString
            endpoints = Dictionary(
                uniqueKeysWithValues: [
                    BusEndpoint.stateEvents, .stateSnapshot, .metricsEvents, .metricsSnapshot, .timelines, .timelineEvents,
                ].map { ($0.variable, "inproc://\($0.variable.lowercased())-\(run)") })
            let (context, endpoints) = (bus.context, endpoints)
            func socket(_ type: ZMQSocketType, bind endpoint: BusEndpoint) throws -> ZMQSocket {
                try .peer(type, on: context, binding: endpoints[endpoint.variable]!)
            }
            statePublisher = try socket(.pub, bind: .stateEvents)
            stateSnapshots = try socket(.router, bind: .stateSnapshot)
            metricsPublisher = try socket(.pub, bind: .metricsEvents)
            metricsSnapshots = try socket(.router, bind: .metricsSnapshot)
            try TimelineService(configuration: .init(environment: endpoints), logger: Logger(label: "test")).start(on: bus)
            timelines = try ZMQSocket(context: bus.context, type: .sub)
            try timelines.setLinger(milliseconds: 0)
            try timelines.subscribe("")
            try timelines.connect(endpoints[BusEndpoint.timelineEvents.variable]!)
            client = try ZMQSocket(context: bus.context, type: .dealer)
            try client.setLinger(milliseconds: 0)
            try client.connect(endpoints[BusEndpoint.timelines.variable]!)
        }

        deinit {
            for socket in [statePublisher, stateSnapshots, metricsPublisher, metricsSnapshots, timelines, client] { socket.close() }
            bus.close()
        }

        /// Runs turns, moving the clock a second each (heartbeats fall due), until `condition` holds.
        func turns(until condition: () throws -> Bool, sourceLocation: SourceLocation = #_sourceLocation) throws {
            #expect(try bus.turns(moving: clock, by: 1, limit: 100, until: condition), sourceLocation: sourceLocation)
        }

        /// The next message on `timelines`, taken now or nil.
        func nextEvent() throws -> (topic: String, body: JSONFieldScanner)? {
            guard let frames = try timelines.receiveMessage(dontWait: true), frames.count == 2,
                let body = JSONFieldScanner(frames[1]).object("body")
            else { return nil }
            return (String(decoding: frames[0], as: UTF8.self), body)
        }

        /// Runs turns until a `TimelineChanged` arrives, skipping heartbeats.
        func nextTimeline() throws -> JSONFieldScanner? {
            var timeline: JSONFieldScanner?
            try turns {
                while timeline == nil, let event = try nextEvent() {
                    if event.topic != Topic.heartbeat { timeline = event.body }
                }
                return timeline != nil
            }
            return timeline
        }

        /// Asks for `user`'s Tension Check timeline as request `id`, at `minimumVersion` when given.
        func askTimeline(id: String, user: String, minimumVersion: UInt64? = nil) throws {
            try client.send([
                try codec.encode(
                    Envelope(
                        id: id, type: MessageType.timelineRequest.rawValue, user: user,
                        body: TimelineRequestBody(kind: .tensionCheck, minimumVersion: minimumVersion)))
            ])
        }

        /// The replies to `client` until the `Pong` of a `Ping` sent now: the service answers in
        /// arrival order, so these are all it answered before reading the ping.
        func repliesBeforeAPing() throws -> [JSONFieldScanner] {
            try client.send([try codec.encode(Envelope(id: "ping-\(UUID())", type: MessageType.ping.rawValue, body: EmptyBody()))])
            var replies: [JSONFieldScanner] = []
            // The clock stands still: a waiting request's time does not run out here.
            let ponged = try bus.turns(moving: clock, by: 0, limit: 100) {
                while let reply = try client.receiveMessage(dontWait: true).flatMap({ $0.last.map(JSONFieldScanner.init) }) {
                    if reply.string("type") == MessageType.pong.rawValue { return true }
                    replies.append(reply)
                }
                return false
            }
            #expect(ponged, "the service answers a ping")
            return replies
        }

        /// The next reply to `client`, running turns that move the clock by `step`.
        func nextReply(movingClockBy step: TimeInterval) throws -> JSONFieldScanner? {
            var reply: JSONFieldScanner?
            _ = try bus.turns(moving: clock, by: step, limit: 100) {
                reply = try client.receiveMessage(dontWait: true).flatMap { $0.last.map(JSONFieldScanner.init) }
                return reply != nil
            }
            return reply
        }

        /// Publishes intent-handler's event `body` of `type` on `topic`.
        func publishState(topic: String, type: MessageType, _ body: some Encodable & Sendable) throws {
            try statePublisher.send([Data(topic.utf8), try codec.encode(Envelope(type: type.rawValue, body: body))])
        }

        /// Answers the snapshot request waiting on `router` with `body`.
        func answerSnapshot(on router: ZMQSocket, type: MessageType, _ body: some Encodable & Sendable) throws {
            var request: RoutedMessage?
            try turns {
                request = try router.receiveMessage(dontWait: true).map(RoutedMessage.init(frames:))
                return request != nil
            }
            let message = try #require(request)
            let payload = try #require(message.payload)
            let id = try #require(JSONFieldScanner(payload).string("id"))
            try router.send(message.reply(try codec.reply(to: id, user: nil, type: type, body: body)))
        }
    }

    static func tension(_ user: String, version: UInt64) -> StateRecord {
        StateRecord(user: user, app: .tensionCheck, version: version, state: .tensionCheck(TensionCheckState(phase: .picker)))
    }

    @Test func followsItsOwnersPublishesAnswersAndRefreshesWhenATimelineRunsOut() throws {
        let harness = try Harness()
        // The subscription reaches the service's publisher: its heartbeats arrive.
        try harness.turns { try harness.nextEvent()?.topic == Topic.heartbeat }

        try harness.answerSnapshot(
            on: harness.stateSnapshots, type: .snapshotReply,
            SnapshotBody(epoch: "00000000000000b1", sequence: 4, states: [Self.tension("ann", version: 4)]))
        try harness.answerSnapshot(
            on: harness.metricsSnapshots, type: .metricsSnapshotReply, MetricsSnapshotBody(epoch: "00000000000000b2", sequence: 0, aggregates: []))

        let first = try #require(try harness.nextTimeline(), "synced: ann's widget is published")
        #expect(first.string("causedBy") == nil)
        let timeline = try #require(first.object("timeline"))
        #expect(timeline.string("kind") == WidgetKind.tensionCheck.rawValue && timeline.unsignedInteger("stateVersion") == 4)
        let generatedAt = try #require(timeline.string("generatedAt").flatMap(WireDate.parse))
        let validUntil = try #require(timeline.string("validUntil").flatMap(WireDate.parse))
        #expect(validUntil == generatedAt.addingTimeInterval(TensionCheckTimelinePolicy.pickerRefresh))

        // A request is answered from the same replica.
        try harness.client.send([
            try harness.codec.encode(
                Envelope(
                    id: "ask-1", type: MessageType.timelineRequest.rawValue, user: "ann",
                    body: TimelineRequestBody(kind: .tensionCheck)))
        ])
        var reply: JSONFieldScanner?
        try harness.turns {
            reply = try harness.client.receiveMessage(dontWait: true).flatMap { $0.last.map(JSONFieldScanner.init) }
            return reply != nil
        }
        #expect(reply?.string("inReplyTo") == "ask-1" && reply?.object("body")?.unsignedInteger("stateVersion") == 4)
        #expect(
            reply?.object("body")?.string("generatedAt").flatMap(WireDate.parse) == WireDate.parse(WireDate.format(harness.clock.now)),
            "built at the bus's time, as events are")

        // The timeline runs out: the service publishes it again by itself, built at the new time.
        harness.clock.advance(by: validUntil.timeIntervalSince(harness.clock.now))
        let refreshed = try #require(try harness.nextTimeline(), "a timeline that runs out is published again")
        #expect(refreshed.string("causedBy") == nil)
        let refreshedAt = try #require(refreshed.object("timeline")?.string("generatedAt").flatMap(WireDate.parse))
        #expect(refreshedAt >= validUntil)

        // A state event is published with the request behind it, in the request's trace: the
        // timeline names the request, and is built in a span of that trace.
        let changed = StateChangedBody(
            epoch: "00000000000000b1", sequence: 5, causedBy: "intent-5", record: Self.tension("ann", version: 5))
        var event = Envelope(type: MessageType.stateChanged.rawValue, user: "ann", body: changed)
        event.trace = TraceContext.start()
        _ = TestTracer.shared
        try harness.statePublisher.send([Data(Topic.state(app: .tensionCheck, user: "ann").utf8), try harness.codec.encode(event)])
        let next = try #require(try harness.nextTimeline())
        #expect(next.string("causedBy") == "intent-5" && next.object("timeline")?.unsignedInteger("stateVersion") == 5)
        let traceID = try #require(event.trace?.traceID)
        #expect(TestTracer.finishedSpans(inTrace: "\(traceID)").map(\.operationName) == ["build timeline"])
    }

    @Test func itsHeartbeatsSayTenTimesASecondHowFarItHasAppliedEachStreamItIsSyncedWith() throws {
        let harness = try Harness()
        /// The heartbeats that arrive while the clock moves a tenth of a second a turn, until `count` have.
        func heartbeats(_ count: Int) throws -> [Envelope<HeartbeatBody>] {
            var beats: [Envelope<HeartbeatBody>] = []
            #expect(
                try harness.bus.turns(moving: harness.clock, by: 0.1) {
                    while let frames = try harness.timelines.receiveMessage(dontWait: true) {
                        if frames.first == Data(Topic.heartbeat.utf8) { beats.append(try harness.codec.decode(Envelope<HeartbeatBody>.self, from: frames[1])) }
                    }
                    return beats.count >= count
                })
            return beats
        }
        let unsynced = try heartbeats(1)
        #expect(unsynced.first?.body.follows == [], "synced with nothing yet")

        try harness.answerSnapshot(
            on: harness.stateSnapshots, type: .snapshotReply, SnapshotBody(epoch: "00000000000000b1", sequence: 4, states: []))
        try harness.publishState(
            topic: Topic.state(app: .tensionCheck, user: "ann"), type: .stateChanged,
            StateChangedBody(epoch: "00000000000000b1", sequence: 5, causedBy: "intent-5", record: Self.tension("ann", version: 5)))
        var latest = try heartbeats(1).last
        for _ in 0..<10 where latest?.body.follows?.first?.sequence != 5 { latest = try heartbeats(1).last }
        #expect(
            latest?.body.follows == [FollowedPosition(publisher: "intent-handler", epoch: "00000000000000b1", sequence: 5)],
            "the event applied, a heartbeat says so; metrics-ingest's replica is not synced yet")

        try harness.answerSnapshot(
            on: harness.metricsSnapshots, type: .metricsSnapshotReply, MetricsSnapshotBody(epoch: "00000000000000b2", sequence: 9, aggregates: []))
        let synced = try heartbeats(3)
        #expect(
            synced.last?.body.follows == [
                FollowedPosition(publisher: "intent-handler", epoch: "00000000000000b1", sequence: 5),
                FollowedPosition(publisher: "metrics-ingest", epoch: "00000000000000b2", sequence: 9),
            ])
        let gaps = zip(synced.dropFirst(), synced).map { later, earlier in later.sentAt.timeIntervalSince(earlier.sentAt) }
        #expect(gaps.allSatisfy { abs($0 - EventPublisher.progressInterval) < 0.002 }, "\(gaps)")

        // Nothing heard of either owner for more than 3 s (no event, no heartbeat): cut off, it
        // follows neither, and its position, which no longer moves, holds neither back.
        harness.clock.advance(by: 3)  // SequencedReplica.followingSilence
        #expect(try heartbeats(2).last?.body.follows == [])
    }

    @Test func aTimelineAskedAtAVersionWaitsUntilTheReplicaHasItOrAnswersUnavailableAfterTheWait() throws {
        let harness = try Harness()
        let epoch = "00000000000000b1"
        try harness.answerSnapshot(
            on: harness.stateSnapshots, type: .snapshotReply, SnapshotBody(epoch: epoch, sequence: 4, states: [Self.tension("ann", version: 4)]))
        _ = try #require(try harness.nextTimeline(), "synced")

        // Version 4 is in the replica: answered at once, like a request with no version.
        try harness.askTimeline(id: "at-4", user: "ann", minimumVersion: 4)
        let atOnce = try harness.repliesBeforeAPing()
        #expect(atOnce.map { $0.string("inReplyTo") } == ["at-4"])
        #expect(atOnce.first?.object("body")?.unsignedInteger("profileVersion") == 0)

        // Ann's zone change is acknowledged as version 6 before its event arrives: the request
        // for it waits, through an event that brings only version 5.
        try harness.askTimeline(id: "at-6", user: "ann", minimumVersion: 6)
        #expect(try harness.repliesBeforeAPing().isEmpty, "version 6 is not in the replica yet")
        try harness.publishState(
            topic: Topic.state(app: .tensionCheck, user: "bob"), type: .stateChanged,
            StateChangedBody(epoch: epoch, sequence: 5, causedBy: "intent-5", record: Self.tension("bob", version: 5)))
        #expect(try harness.repliesBeforeAPing().isEmpty, "version 5 is not enough")
        try harness.publishState(
            topic: Topic.profile(user: "ann"), type: .profileChanged,
            ProfileChangedBody(epoch: epoch, sequence: 6, causedBy: "zone-6", profile: UserProfile(user: "ann", timeZone: "Asia/Tokyo", version: 6)))
        let answered = try #require(try harness.nextReply(movingClockBy: 0))
        #expect(answered.string("inReplyTo") == "at-6")
        let body = try #require(answered.object("body"))
        #expect(body.unsignedInteger("profileVersion") == 6 && body.string("timeZone") == "Asia/Tokyo")

        // A version that never comes: nothing until the wait is over, then `unavailable`.
        try harness.askTimeline(id: "at-99", user: "ann", minimumVersion: 99)
        harness.clock.advance(by: WaitingTimelineRequests.longestWait / 2)
        #expect(try harness.repliesBeforeAPing().isEmpty, "still within its wait")
        let refused = try #require(try harness.nextReply(movingClockBy: WaitingTimelineRequests.longestWait / 4))
        #expect(refused.string("inReplyTo") == "at-99" && refused.string("type") == MessageType.error.rawValue)
        #expect(refused.object("body")?.string("code") == ErrorCode.unavailable.rawValue)

        // A request still waiting when the service stops is answered, not dropped.
        try harness.askTimeline(id: "at-100", user: "ann", minimumVersion: 100)
        #expect(try harness.repliesBeforeAPing().isEmpty)
        let stop = StopSignal()
        stop.request()
        try harness.bus.run(until: stop)
        let atStop = try #require(try harness.client.receiveMessage().flatMap { $0.last.map(JSONFieldScanner.init) })
        #expect(atStop.string("inReplyTo") == "at-100" && atStop.object("body")?.string("code") == ErrorCode.unavailable.rawValue)
        #expect(atStop.object("body")?.string("message")?.contains("stopping") == true)
    }
}
