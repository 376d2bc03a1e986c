import Foundation
import Logging
import ServiceSupport
import Testing
import WidgetBusProtocol
import WidgetBusTestSupport
import ZeroMQ

@testable import BusRuntime
@testable import IntentHandling

/// intent-handler whole, in-process: its own `start(on:)` on a bus with a clock set by hand, every
/// endpoint `inproc://`, a real SQLite store, and the test playing timeline-service's heartbeats.
@Suite struct IntentHandlerServiceTests {
    final class Harness {
        let clock = ManualClock()
        let bus: Bus
        let codec = WireCodec()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("intent-handler-\(UUID().uuidString)")
        /// Plays timeline-service's publisher, whose heartbeats say how far it has applied the state events.
        let timelineService: ZMQSocket
        let stateEvents: ZMQSocket
        let client: ZMQSocket

        init(longestTimelineLagMilliseconds: Int = 1_000) throws {
            bus = try Bus(clock: clock)
            let run = UUID().uuidString
            var environment = Dictionary(
                uniqueKeysWithValues: [BusEndpoint.intents, .stateEvents, .stateSnapshot, .timelineEvents].map {
                    ($0.variable, "inproc://\($0.variable.lowercased())-\(run)")
                })
            let endpoints = environment
            environment[EnvironmentSetting.dataDirectory.variable] = folder.path
            environment[EnvironmentSetting.intentPacing.variable] = "0"
            environment[EnvironmentSetting.timelineLongestLag.variable] = "\(longestTimelineLagMilliseconds)"
            timelineService = try .peer(.xpub, on: bus.context, binding: endpoints[BusEndpoint.timelineEvents.variable]!)
            try IntentHandlerService(configuration: .init(environment: environment), logger: Logger(label: "test")).start(on: bus)
            stateEvents = try ZMQSocket(context: bus.context, type: .sub)
            try stateEvents.setLinger(milliseconds: 0)
            try stateEvents.subscribe(Topic.statePrefix)
            try stateEvents.connect(endpoints[BusEndpoint.stateEvents.variable]!)
            client = try ZMQSocket(context: bus.context, type: .dealer)
            try client.setLinger(milliseconds: 0)
            try client.connect(endpoints[BusEndpoint.intents.variable]!)
        }

        deinit {
            for socket in [timelineService, stateEvents, client] { socket.close() }
            bus.close()
            try? FileManager.default.removeItem(at: folder)
        }

        /// Sends a Tension Check tap of `user` as request `id`.
        func sendIntent(_ id: String, user: String = "ann") throws {
            try client.send([IntentProcessorTests.Harness.payload("RecordTensionIntent", user: user, id: id, body: #"{"level":7}"#)])
        }

        /// Sends `count` taps of as many users, and returns once each is answered with its state.
        func tapBurst(_ count: Int, named name: String) throws {
            for index in 0..<count { try sendIntent("\(name)-\(index)", user: "\(name)-\(index)") }
            var states = 0
            _ = try bus.turns(moving: clock, by: 0, limit: 1_000) {
                while let reply = try client.receiveMessage(dontWait: true)?.last.map(JSONFieldScanner.init) {
                    #expect(reply.string("type") == MessageType.stateReply.rawValue)
                    states += 1
                }
                return states == count
            }
            #expect(states == count)
        }

        /// The state version (its sequence) a state reply carries.
        static func version(of reply: JSONFieldScanner?) -> UInt64? {
            reply?.object("body")?.unsignedInteger("version")
        }

        /// The reply to the client, running turns without moving the clock; nil if none came in `turns` turns.
        func reply(withinTurns turns: Int = 100) throws -> JSONFieldScanner? {
            var reply: JSONFieldScanner?
            _ = try bus.turns(moving: clock, by: 0, limit: turns) {
                reply = try client.receiveMessage(dontWait: true)?.last.map(JSONFieldScanner.init)
                return reply != nil
            }
            return reply
        }

        /// The next state event: its epoch and sequence.
        func stateEvent() throws -> (epoch: String, sequence: UInt64)? {
            var frames: [Data]?
            _ = try bus.turns(moving: clock, by: 0) {
                frames = try stateEvents.receiveMessage(dontWait: true)
                return frames != nil
            }
            return try frames.map { frames in
                let body = try codec.decode(Envelope<StateChangedBody>.self, from: frames[1]).body
                return (body.epoch, body.sequence)
            }
        }

        /// timeline-service's heartbeat saying it applied intent-handler's events up to `sequence` of `epoch`.
        func reportTimelineService(at sequence: UInt64, of epoch: String) throws {
            let body = HeartbeatBody(
                publisher: "timeline-service", epoch: "00000000000000f1", sequence: 1,
                follows: [FollowedPosition(publisher: "intent-handler", epoch: epoch, sequence: sequence)])
            try timelineService.send([Data(Topic.heartbeat.utf8), try codec.encode(Envelope(type: MessageType.heartbeat.rawValue, body: body))])
            try bus.turn(waitingAtMost: 0.05)
        }
    }

    @Test func intentsAreHeldWhileTimelineServiceIsTooFarBehindAndAdmittedOnceItCatchesUpOrGoesSilent() throws {
        let harness = try Harness()
        #expect(try harness.timelineService.awaitSubscriptions(to: [Topic.heartbeat]), "intent-handler follows timeline-service's heartbeats")
        try harness.sendIntent("a")
        #expect(try harness.reply()?.string("type") == MessageType.stateReply.rawValue)
        let (epoch, first) = try #require(try harness.stateEvent())
        let backlog = Int(TimelineFollowing.fewestEventsBehind)

        // timeline-service has not applied event 1, nor the burst after it, by 1.1 s after event 1 went out.
        try harness.reportTimelineService(at: first - 1, of: epoch)
        try harness.tapBurst(backlog, named: "burst")
        harness.clock.advance(by: 1.1)
        try harness.sendIntent("b")
        #expect(try harness.reply(withinTurns: 20) == nil, "held: b waits in the admission's queue")
        harness.clock.advance(by: 0.5)
        let refused = try #require(try harness.reply()?.object("body"), "b waited its 500 ms")
        #expect(refused.string("code") == ErrorCode.unavailable.rawValue)
        let message = refused.string("message") ?? ""
        #expect(message.contains("held back: timeline-service is 1600 ms and \(backlog + 1) events behind the state events"), "\(message)")

        // It reports everything applied: intents are handled again.
        let latest = first + UInt64(backlog)
        try harness.reportTimelineService(at: latest, of: epoch)
        try harness.sendIntent("c")
        #expect(Harness.version(of: try harness.reply()) == latest + 1, "b was not handled: c got the next sequence")

        // One event behind, 1.5 s after it went out: a stall at a light load holds nothing.
        harness.clock.advance(by: 1.5)
        try harness.sendIntent("d")
        #expect(Harness.version(of: try harness.reply()) == latest + 2)

        // It goes silent behind a burst: after 2 s unheard it is no longer waited for.
        try harness.reportTimelineService(at: latest + 2, of: epoch)
        try harness.tapBurst(backlog, named: "second")
        harness.clock.advance(by: 1.8)
        try harness.sendIntent("e")
        #expect(try harness.reply(withinTurns: 20) == nil, "held: 1.8 s and a burst behind, heard 1.8 s ago")
        harness.clock.advance(by: 0.3)
        #expect(
            try harness.reply()?.string("type") == MessageType.stateReply.rawValue, "unheard for 2.1 s: taken as gone, e is handled within its wait")
    }

    @Test func withALongestLagOfZeroTimelineServiceIsNotFollowed() throws {
        let harness = try Harness(longestTimelineLagMilliseconds: 0)
        try harness.sendIntent("a")
        #expect(try harness.reply()?.string("type") == MessageType.stateReply.rawValue)
        let (epoch, first) = try #require(try harness.stateEvent())
        try harness.reportTimelineService(at: first - 1, of: epoch)
        harness.clock.advance(by: 10)
        try harness.sendIntent("b")
        #expect(try harness.reply()?.string("type") == MessageType.stateReply.rawValue)
    }
}
