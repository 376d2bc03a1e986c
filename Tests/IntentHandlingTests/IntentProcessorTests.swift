import Foundation
import InMemoryTracing
import Testing
import Tracing
import W3CTraceContext
import WidgetBusProtocol
import WidgetBusTestSupport
import WidgetDomain

@testable import IntentHandling
@testable import BusRuntime

/// intent-handler's rules in-process: requests as its ROUTER hands them over, a real SQLite store
/// in a temporary folder, a clock set by hand. No process, no port.
@Suite struct IntentProcessorTests {
    /// A processor over a fresh store; `reopen()` plays a restart on the same store.
    final class Harness {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("intent-processor-\(UUID().uuidString)")
        let codec = WireCodec()
        let clock = ManualClock()
        let capacity: Int
        private(set) var processor: IntentProcessor!

        init(capacity: Int = 100) throws {
            self.capacity = capacity
            try reopen()
        }

        deinit {
            try? FileManager.default.removeItem(at: folder)
        }

        func reopen() throws {
            let store = try SQLiteStateStore(path: folder.appendingPathComponent("intent-handler.sqlite").path, codec: codec)
            processor = try IntentProcessor(
                store: store, codec: codec, epoch: "00000000000000e5", capacity: capacity, clock: clock,
                random: RandomSource(SeededRandom(seed: 7)))
        }

        /// One request payload, as a client writes it.
        static func payload(_ type: String, user: String? = "ann", id: String = MessageID.random(), body: String = "{}") -> Data {
            let userField = user.map { #""user":"\#($0)","# } ?? ""
            return Data(#"{"version":1,"id":"\#(id)","type":"\#(type)",\#(userField)"sentAt":"2027-01-15T08:00:00Z","body":\#(body)}"#.utf8)
        }

        /// Hands `payloads` to the processor as one drained batch from a REQ peer.
        func process(_ payloads: [Data], on endpoint: IntentProcessor.Endpoint = .intents) -> [IntentProcessor.Outcome] {
            processor.process(payloads.map { RoutedMessage(frames: [Data("peer".utf8), Data(), $0]) }, on: endpoint)
        }

        func process(_ payload: Data, on endpoint: IntentProcessor.Endpoint = .intents) -> IntentProcessor.Outcome {
            process([payload], on: endpoint)[0]
        }

        func state(_ outcome: IntentProcessor.Outcome) throws -> Envelope<StateReplyBody> {
            try ReplyDecoding.decode(outcome.reply, as: StateReplyBody.self, codec: codec).get()
        }

        func error(_ outcome: IntentProcessor.Outcome) -> ErrorBody? {
            guard case .failure(let error)? = try? ReplyDecoding.decode(outcome.reply, as: EmptyBody.self, codec: codec) else { return nil }
            return error
        }
    }

    @Test func anIntentIsCommittedRepliedAndPublishedWithTheNextSequenceAtTheClocksTime() throws {
        let harness = try Harness()
        let outcome = harness.process(Harness.payload("RecordTensionIntent", id: "first", body: #"{"level":7}"#))

        let reply = try harness.state(outcome)
        #expect(reply.inReplyTo == "first" && reply.sentAt == harness.clock.now)
        #expect(reply.body.record.version == 1)
        let event = try #require(outcome.event)
        #expect(event.topic == Topic.state(app: .tensionCheck, user: "ann") && event.sequence == 1)
        let changed = try harness.codec.decode(Envelope<StateChangedBody>.self, from: event.payload)
        #expect(changed.body.causedBy == "first" && changed.body.epoch == "00000000000000e5")
        #expect(changed.body.record == reply.body.record, "the reply and the event carry the same state")
        #expect(harness.processor.lastSequence == 1)
    }

    @Test("a traced intent runs in a span of its trace, and its event carries the trace on with a span id of its own")
    func aTracedIntentContinuesItsTrace() throws {
        let harness = try Harness()
        let trace = TraceContext.start()
        _ = TestTracer.shared
        var payload = String(decoding: Harness.payload("RecordTensionIntent", id: "traced", body: #"{"level":7}"#), as: UTF8.self)
        payload = payload.replacingOccurrences(of: #""body":"#, with: #""traceparent":"\#(trace.traceParentHeaderValue)","body":"#)
        let outcome = harness.process(Data(payload.utf8))

        let event = try #require(outcome.event)
        let published = try harness.codec.decode(Envelope<StateChangedBody>.self, from: event.payload)
        let carried = try #require(published.trace)
        #expect(carried.traceID == trace.traceID && carried.spanID != trace.spanID && carried.flags == trace.flags)
        #expect(event.trace == carried)
        let spans = TestTracer.finishedSpans(inTrace: "\(trace.traceID)")
        #expect(spans.map(\.operationName) == ["RecordTensionIntent"] && spans.first?.kind == .server)

        let untraced = harness.process(Harness.payload("RecordTensionIntent", id: "untraced", body: #"{"level":3}"#))
        #expect(try harness.codec.decode(Envelope<StateChangedBody>.self, from: try #require(untraced.event).payload).traceparent == nil)
    }

    @Test func aRetriedRequestGetsTheSameBytesAndChangesNothing() throws {
        let harness = try Harness()
        let payload = Harness.payload("RecordTensionIntent", id: "retried", body: #"{"level":10}"#)
        let first = harness.process(payload)
        harness.clock.advance(by: 60)
        let again = harness.process(payload)

        #expect(again.reply == first.reply)
        #expect(again.event == nil && harness.processor.lastSequence == 1)
        try harness.reopen()
        #expect(harness.process(payload).reply == first.reply, "the reply is kept across a restart")
    }

    @Test func anIdReusedByAnotherRequestIsRefused() throws {
        let harness = try Harness()
        _ = harness.process(Harness.payload("RecordTensionIntent", id: "shared", body: #"{"level":10}"#))
        let reused = harness.process(Harness.payload("ResetWidgetIntent", id: "shared"))
        #expect(harness.error(reused)?.code == .idReused)
        #expect(reused.event == nil)
    }

    static let badRequests: [(name: String, payload: Data, code: ErrorCode)] = [
        ("not JSON", Data("hello, widget".utf8), .badJSON),
        ("an unknown type", Harness.payload("LaunchRocketIntent"), .unknownType),
        ("no user", Harness.payload("RecordTensionIntent", user: nil, body: #"{"level":3}"#), .missingField),
        ("a user that climbs out of its folder", Harness.payload("RecordTensionIntent", user: "../etc", body: #"{"level":3}"#), .invalidUser),
        ("no level", Harness.payload("RecordTensionIntent"), .missingField),
        ("a level out of range", Harness.payload("RecordTensionIntent", body: #"{"level":4}"#), .invalidLevel),
        ("an unknown check-in", Harness.payload("MarkInterventionDoneIntent", body: #"{"checkInId":"nope"}"#), .unknownCheckIn),
        ("a zone no database knows", Harness.payload("SetTimeZone", body: #"{"timeZone":"Mars/Olympus_Mons"}"#), .invalidTimeZone),
        ("a push token that is not hex", Harness.payload("RegisterWidgetPushToken", body: pushTokenBody(token: String(repeating: "zz", count: 16))), .invalidPushToken),
        ("a push token too short", Harness.payload("RegisterWidgetPushToken", body: pushTokenBody(token: "abcd")), .invalidPushToken),
        ("a push token of odd length", Harness.payload("RegisterWidgetPushToken", body: pushTokenBody(token: String(repeating: "a", count: 33))), .invalidPushToken),
        ("a replaced token that is not hex", Harness.payload("RegisterWidgetPushToken", body: pushTokenBody(replaces: "nope")), .invalidPushToken),
        ("an APNs environment that does not exist", Harness.payload("RegisterWidgetPushToken", body: pushTokenBody(environment: "staging")), .invalidField),
        ("a push token for no kind", Harness.payload("RegisterWidgetPushToken", body: pushTokenBody(kinds: [])), .invalidField),
        ("a push token for an unknown kind", Harness.payload("RegisterWidgetPushToken", body: pushTokenBody(kinds: ["WeatherWidget"])), .invalidField),
        ("removing a token that is not hex", Harness.payload("RemoveWidgetPushToken", body: #"{"token":"not-a-token"}"#), .invalidPushToken),
        ("protocol version 2", Data(#"{"version":2,"id":"x","type":"ResetWidgetIntent","user":"ann","sentAt":"2027-01-15T08:00:00Z","body":{}}"#.utf8), .unsupportedVersion),
        ("a payload over the limit", Data(repeating: 0x7B, count: ProtocolLimits.maxPayloadBytes + 1), .payloadTooLarge),
    ]

    @Test(arguments: badRequests)
    func badInputGetsItsCodeAndChangesNothing(name: String, payload: Data, code: ErrorCode) throws {
        let harness = try Harness()
        let outcome = harness.process(payload)
        #expect(harness.error(outcome)?.code == code, "\(name)")
        #expect(outcome.event == nil && harness.processor.lastSequence == 0, "\(name)")
    }

    @Test func aRefusedRequestInABatchLeavesTheOthersCommitted() throws {
        let harness = try Harness()
        let outcomes = harness.process([
            Harness.payload("RecordTensionIntent", body: #"{"level":7}"#),
            Harness.payload("RecordTensionIntent", user: "bea", body: #"{"level":4}"#),
            Harness.payload("RecordTensionIntent", user: "cy", body: #"{"level":5}"#),
        ])
        #expect(outcomes.map { $0.event?.sequence } == [1, nil, 2])
        #expect(harness.error(outcomes[1])?.code == .invalidLevel)
        try harness.reopen()
        #expect(harness.processor.lastSequence == 2, "the batch was committed once, without the refused request")
    }

    @Test func aTimeZoneIsSetOnceAndPublished() throws {
        let harness = try Harness()
        let set = harness.process(Harness.payload("SetTimeZone", body: #"{"timeZone":"Europe/Paris"}"#))
        let profile = try ReplyDecoding.decode(set.reply, as: UserProfile.self, codec: harness.codec).get().body
        #expect(profile == UserProfile(user: "ann", timeZone: "Europe/Paris", version: 1))
        #expect(set.event?.topic == Topic.profile(user: "ann"))

        let same = harness.process(Harness.payload("SetTimeZone", body: #"{"timeZone":"Europe/Paris"}"#))
        #expect(same.event == nil, "the same zone again changes nothing")
    }

    static func pushTokenBody(
        token: String = String(repeating: "ab", count: 32), environment: String = "production", kinds: [String] = ["JitterWidget"],
        replaces: String? = nil
    ) -> String {
        let replacing = replaces.map { #","replaces":"\#($0)""# } ?? ""
        let kindList = kinds.map { "\"\($0)\"" }.joined(separator: ",")
        return #"{"token":"\#(token)","environment":"\#(environment)","kinds":[\#(kindList)]\#(replacing)}"#
    }

    private func pushTokens(_ outcome: IntentProcessor.Outcome, _ harness: Harness) throws -> UserPushTokens {
        try ReplyDecoding.decode(outcome.reply, as: UserPushTokens.self, codec: harness.codec).get().body
    }

    @Test func pushTokensAreRegisteredReplacedAndRemovedOnceEach() throws {
        let harness = try Harness()
        let phone = String(repeating: "AB", count: 32)
        let registered = harness.process(Harness.payload("RegisterWidgetPushToken", body: Self.pushTokenBody(token: phone, kinds: ["JitterWidget", "TensionCheckWidget", "JitterWidget"])))
        let tokens = try pushTokens(registered, harness)
        #expect(tokens == UserPushTokens(
            user: "ann",
            tokens: [WidgetPushToken(token: phone.lowercased(), environment: .production, kinds: [.jitter, .tensionCheck])], version: 1))
        #expect(tokens.tokens[0].kinds == [.jitter, .tensionCheck], "kinds are kept sorted, each once")
        let event = try harness.codec.decode(Envelope<PushTokensChangedBody>.self, from: try #require(registered.event).payload)
        #expect(registered.event?.topic == Topic.pushTokens(user: "ann") && event.body.pushTokens == tokens && event.body.sequence == 1)

        let again = harness.process(Harness.payload("RegisterWidgetPushToken", body: Self.pushTokenBody(token: phone.lowercased(), kinds: ["TensionCheckWidget", "JitterWidget"])))
        #expect(try again.event == nil && pushTokens(again, harness) == tokens, "the same registration again changes nothing")

        let tablet = String(repeating: "cd", count: 40)
        _ = harness.process(Harness.payload("RegisterWidgetPushToken", body: Self.pushTokenBody(token: tablet, environment: "sandbox")))
        let rotated = String(repeating: "ef", count: 32)
        let replaced = try pushTokens(
            harness.process(Harness.payload("RegisterWidgetPushToken", body: Self.pushTokenBody(token: rotated, replaces: phone))), harness)
        #expect(replaced.tokens.map(\.token) == [tablet, rotated], "the replaced token is gone, the new one last")
        #expect(replaced.version == 3)

        let removed = harness.process(Harness.payload("RemoveWidgetPushToken", body: #"{"token":"\#(tablet.uppercased())"}"#))
        #expect(try pushTokens(removed, harness).tokens.map(\.token) == [rotated])
        let absent = harness.process(Harness.payload("RemoveWidgetPushToken", body: #"{"token":"\#(tablet)"}"#))
        #expect(absent.event == nil, "removing a token the user does not have changes nothing")

        try harness.reopen()
        let snapshot = harness.process(Harness.payload("SnapshotRequest", user: nil, body: #"{"prefix":"state.push."}"#), on: .snapshot)
        let body = try ReplyDecoding.decode(snapshot.reply, as: SnapshotBody.self, codec: harness.codec).get().body
        #expect(body.pushTokens == [UserPushTokens(user: "ann", tokens: [WidgetPushToken(token: rotated, environment: .production, kinds: [.jitter])], version: 4)])
        #expect(body.states.isEmpty && body.profiles.isEmpty && body.sequence == 4)

        let last = harness.process(Harness.payload("RemoveWidgetPushToken", body: #"{"token":"\#(rotated)"}"#))
        #expect(try pushTokens(last, harness).tokens.isEmpty && last.event != nil)
        let emptied = harness.process(Harness.payload("SnapshotRequest", user: nil, body: #"{"prefix":"state."}"#), on: .snapshot)
        #expect(try ReplyDecoding.decode(emptied.reply, as: SnapshotBody.self, codec: harness.codec).get().body.pushTokens.isEmpty)
        let none = harness.process(Harness.payload("RemoveWidgetPushToken", body: #"{"token":"\#(rotated)"}"#))
        #expect(try pushTokens(none, harness).version == 5, "the version of the last change, not back to 0")
    }

    @Test func aUserKeepsTheirTwentyMostRecentlyRegisteredTokens() throws {
        let harness = try Harness()
        let tokens = (0..<(UserPushTokens.maxTokens + 1)).map { String(format: "%064x", $0) }
        for token in tokens {
            _ = harness.process(Harness.payload("RegisterWidgetPushToken", body: Self.pushTokenBody(token: token)))
        }
        let first = harness.process(Harness.payload("RegisterWidgetPushToken", body: Self.pushTokenBody(token: tokens[1])))
        #expect(try pushTokens(first, harness).tokens.map(\.token) == Array(tokens[2...]) + [tokens[1]])
    }

    @Test func eachEndpointServesItsOwnRequests() throws {
        let harness = try Harness()
        _ = harness.process(Harness.payload("RecordTensionIntent", body: #"{"level":7}"#))
        let intentOnSnapshots = harness.process(Harness.payload("ResetWidgetIntent"), on: .snapshot)
        #expect(harness.error(intentOnSnapshots)?.code == .unknownType)

        let snapshot = harness.process(
            Harness.payload("SnapshotRequest", user: nil, body: #"{"prefix":"state."}"#), on: .snapshot)
        let body = try ReplyDecoding.decode(snapshot.reply, as: SnapshotBody.self, codec: harness.codec).get().body
        #expect(body.sequence == 1 && body.epoch == "00000000000000e5" && body.states.map(\.user) == ["ann"])
    }

    @Test func aStateEvictedFromMemoryIsReadBackFromTheStore() throws {
        let harness = try Harness(capacity: 1)
        _ = harness.process(Harness.payload("RecordTensionIntent", body: #"{"level":7}"#))
        _ = harness.process(Harness.payload("RecordTensionIntent", user: "bea", body: #"{"level":7}"#))
        let reset = try harness.state(harness.process(Harness.payload("ResetWidgetIntent")))
        #expect(reset.body.record.version == 3)
        guard case .tensionCheck(let state) = reset.body.record.state else {
            Issue.record("a Tension Check state")
            return
        }
        #expect(state.phase == .picker)
    }
}
