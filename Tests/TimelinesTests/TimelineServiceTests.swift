import Foundation
import Logging
import Testing
import WidgetBusProtocol
import WidgetBusTestSupport
import WidgetDomain
import ZeroMQ

@testable import ServiceSupport
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

        // The timeline runs out: the service publishes it again by itself, built at the new time.
        harness.clock.advance(by: validUntil.timeIntervalSince(harness.clock.now))
        let refreshed = try #require(try harness.nextTimeline(), "a timeline that runs out is published again")
        #expect(refreshed.string("causedBy") == nil)
        let refreshedAt = try #require(refreshed.object("timeline")?.string("generatedAt").flatMap(WireDate.parse))
        #expect(refreshedAt >= validUntil)

        // A state event is published with the request behind it.
        let changed = StateChangedBody(
            epoch: "00000000000000b1", sequence: 5, causedBy: "intent-5", record: Self.tension("ann", version: 5))
        try harness.statePublisher.send([
            Data(Topic.state(app: .tensionCheck, user: "ann").utf8),
            try harness.codec.encode(Envelope(type: MessageType.stateChanged.rawValue, user: "ann", body: changed)),
        ])
        let next = try #require(try harness.nextTimeline())
        #expect(next.string("causedBy") == "intent-5" && next.object("timeline")?.unsignedInteger("stateVersion") == 5)
    }
}
