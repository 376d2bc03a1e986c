import Foundation
import Testing
import WidgetBusProtocol
import WidgetDomain

/// Bad input gets a clear error reply with a stable code, changes nothing, and the service keeps
/// answering correctly afterwards.
@Suite(.serialized, .blockingThreads)
struct BadInputTests {
    static let badIntents: [(name: String, payload: Data, code: ErrorCode)] = [
        ("not JSON", Data("hello, widget".utf8), .badJSON),
        ("binary garbage", Data([0xFF, 0x00, 0xFE, 0x7B]), .badJSON),
        ("a JSON array", Data("[1,2,3]".utf8), .badJSON),
        ("an empty frame", Data(), .badJSON),
        ("unknown type", Data(RawClient.envelope(type: "LaunchRocketIntent", body: "{}").utf8), .unknownType),
        ("a reply type", Data(RawClient.envelope(type: "StateReply", body: "{}").utf8), .unknownType),
        ("missing user", Data(RawClient.envelope(type: "RecordTensionIntent", user: nil, body: #"{"level":3}"#).utf8), .missingField),
        ("traversal user", Data(RawClient.envelope(type: "RecordTensionIntent", user: "../etc", body: #"{"level":3}"#).utf8), .invalidUser),
        ("missing level", Data(RawClient.envelope(type: "RecordTensionIntent", body: "{}").utf8), .missingField),
        ("level as text", Data(RawClient.envelope(type: "RecordTensionIntent", body: #"{"level":"high"}"#).utf8), .invalidField),
        ("level 4", Data(RawClient.envelope(type: "RecordTensionIntent", body: #"{"level":4}"#).utf8), .invalidLevel),
        ("level 11", Data(RawClient.envelope(type: "RecordTensionIntent", body: #"{"level":11}"#).utf8), .invalidLevel),
        ("fractional level", Data(RawClient.envelope(type: "RecordTensionIntent", body: #"{"level":7.5}"#).utf8), .invalidField),
        ("huge level", Data(RawClient.envelope(type: "RecordTensionIntent", body: #"{"level":1e20}"#).utf8), .invalidField),
        ("a level too small to tell from 0", Data(RawClient.envelope(type: "RecordTensionIntent", body: #"{"level":1e-400}"#).utf8), .invalidField),
        ("a negative level too small to tell from 0", Data(RawClient.envelope(type: "RecordTensionIntent", body: #"{"level":-1e-400}"#).utf8), .invalidField),
        ("user as a number", Data(#"{"version":1,"id":"n","type":"ResetWidgetIntent","user":42,"sentAt":"2026-11-22T10:00:00Z","body":{}}"#.utf8), .invalidField),
        ("level -3", Data(RawClient.envelope(type: "RecordTensionIntent", body: #"{"level":-3}"#).utf8), .invalidLevel),
        ("unknown check-in", Data(RawClient.envelope(type: "MarkInterventionDoneIntent", body: #"{"checkInId":"nope"}"#).utf8), .unknownCheckIn),
        ("protocol version 2", Data(#"{"version":2,"id":"x","type":"ResetWidgetIntent","user":"mallory","sentAt":"2026-11-22T10:00:00Z","body":{}}"#.utf8), .unsupportedVersion),
        ("a 10 MB frame", Data(repeating: 0x7B, count: 10 * 1024 * 1024), .payloadTooLarge),
    ]

    @Test func intentHandlerAnswersEveryBadIntentWithItsCodeAndChangesNothing() throws {
        let bus = try BusFixture()
        try bus.start(.intentHandler)
        let before = try bus.send(.recordTension, user: "mallory", body: #"{"level":7}"#)
        let pendingBefore = try bus.pendingRecords(user: "mallory")
        let client = try RawClient(endpoint: bus.endpoint(.intents))

        for bad in Self.badIntents {
            let reply = try client.errorReply(to: bad.payload)
            #expect(reply?.type == "Error", "\(bad.name): no error reply")
            #expect(reply?.body.code == bad.code, "\(bad.name): got \(String(describing: reply?.body))")
            #expect(reply?.body.message.isEmpty == false, "\(bad.name): error without a message")
        }

        let unknown = Data(RawClient.envelope(type: "LaunchRocketIntent", id: "named-request", body: "{}").utf8)
        #expect(try client.errorReply(to: unknown)?.inReplyTo == "named-request", "an error names the request it answers")
        let numericUser = Data(#"{"version":1,"id":"named-2","type":"ResetWidgetIntent","user":42,"sentAt":"2026-11-22T10:00:00Z","body":{}}"#.utf8)
        #expect(try client.errorReply(to: numericUser)?.inReplyTo == "named-2", "even when another header field is malformed")
        let badUser = Data(RawClient.envelope(type: "ResetWidgetIntent", user: "../../x", body: "{}").utf8)
        #expect(try client.errorReply(to: badUser)?.user == nil, "an invalid user id is not echoed back")
        let twoFrames = try client.exchange([Data("{}".utf8), Data("{}".utf8)])
        let twoFramesError = try twoFrames.map { try bus.codec.decode(Envelope<ErrorBody>.self, from: $0[0]) }
        #expect(twoFramesError?.body.code == .badFrames)

        // Nothing changed, and the service still answers correctly.
        #expect(try bus.pendingRecords(user: "mallory") == pendingBefore)
        let after = try bus.send(.resetWidget, user: "mallory")
        #expect(after.version == before.version + 1, "a bad request must not consume a sequence number")
        guard case .tensionCheck(let state) = after.state else {
            Issue.record("expected a Tension Check state, got \(after.state)")
            return
        }
        #expect(state.phase == .picker)
    }

    /// A payload broken where no service looks is still `bad_json`, and its error reply echoes
    /// nothing read from it; a repeated key keeps its first value; an absent body is a missing
    /// field where the type reads one. PROTOCOL.md §8 step 3 and §9.
    @Test func strictJSONWhereverTheFault() throws {
        let bus = try BusFixture()
        try bus.start(.intentHandler)
        let before = try bus.send(.recordTension, user: "sam", body: #"{"level":3}"#)
        let client = try RawClient(endpoint: bus.endpoint(.intents))
        func intent(_ id: String, body: String = #"{"level":7}"#, extra: String = "") -> Data {
            Data(#"{"version":1,"id":"\#(id)","type":"RecordTensionIntent","user":"sam","sentAt":"2026-11-22T10:00:00.000Z","body":\#(body)\#(extra)}"#.utf8)
        }
        let nested = String(repeating: "[", count: 513) + String(repeating: "]", count: 513)
        // A broken two-byte sequence in a string no one reads.
        let invalidUTF8 = Data(#"{"version":1,"id":"strict-utf8","type":"RecordTensionIntent","user":"sam","sentAt":"2026-11-22T10:00:00.000Z","body":{"level":7},"note":"caf"#.utf8)
            + Data([0xC3, 0x28]) + Data(#""}"#.utf8)
        let broken: [(String, Data)] = [
            ("a trailing comma in an unread field", intent("strict-comma", extra: #","note":[1,2,]"#)),
            ("a leading zero in an unread field", intent("strict-zero", extra: #","note":01"#)),
            ("text after the value", intent("strict-after") + Data(" x".utf8)),
            ("a second value after the first", intent("strict-second") + Data("{}".utf8)),
            ("a lone surrogate in an unread string", intent("strict-surrogate", extra: #","note":"\ud800""#)),
            ("513 levels deep in an unread field", intent("strict-deep", extra: #","note":"# + nested)),
            ("invalid UTF-8 in an unread string", invalidUTF8),
        ]
        for (name, payload) in broken {
            let reply = try #require(try client.errorReply(to: payload), "\(name): no error reply")
            #expect(reply.body.code == .badJSON, "\(name): \(reply.body)")
            #expect(reply.inReplyTo == nil && reply.user == nil, "\(name): a payload that is not JSON has no fields to echo")
        }

        let repeated = try #require(try client.errorReply(to: intent("strict-repeated", body: #"{"level":4,"level":7}"#)))
        #expect(repeated.body.code == .invalidLevel, "the first of a repeated key counts: level 4")
        #expect(repeated.inReplyTo == "strict-repeated" && repeated.user == "sam")
        let noBody = Data(#"{"version":1,"id":"strict-nobody","type":"RecordTensionIntent","user":"sam","sentAt":"2026-11-22T10:00:00.000Z"}"#.utf8)
        #expect(try client.errorReply(to: noBody)?.body.code == .missingField, "a type that reads a body needs one")
        let resetWithoutBody = Data(#"{"version":1,"id":"strict-reset","type":"ResetWidgetIntent","user":"sam","sentAt":"2026-11-22T10:00:00.000Z"}"#.utf8)
        let reset = try #require(try client.exchange([resetWithoutBody])?.first)
        #expect(try bus.codec.decode(EnvelopeHeader.self, from: reset).type == "StateReply", "a type that reads no body needs none")

        let after = try bus.send(.recordTension, user: "sam", body: #"{"level":7}"#)
        #expect(after.version == before.version + 1, "none of them changed anything")
    }

    @Test func timelineServiceAnswersBadRequestsWithCodes() throws {
        let bus = try BusFixture()
        try bus.start(.intentHandler)
        try bus.start(.timelineService)
        _ = try bus.tensionTimeline(user: "mallory")
        let client = try RawClient(endpoint: bus.endpoint(.timelines))

        let cases: [(String, String, ErrorCode)] = [
            ("not JSON", "{{{{", .badJSON),
            ("unknown kind", RawClient.envelope(type: "TimelineRequest", body: #"{"kind":"ClockWidget"}"#), .invalidField),
            ("missing user", RawClient.envelope(type: "TimelineRequest", user: nil, body: #"{"kind":"TensionCheckWidget"}"#), .missingField),
            ("an intent", RawClient.envelope(type: "RecordTensionIntent", body: #"{"level":3}"#), .unknownType),
        ]
        for (name, json, code) in cases {
            #expect(try client.errorReply(toJSON: json)?.body.code == code, "\(name)")
        }
        #expect(try client.errorReply(to: Data(repeating: 0x20, count: 10 * 1024 * 1024))?.body.code == .payloadTooLarge)

        let timeline = try bus.tensionTimeline(user: "mallory")
        #expect(timeline.entries.map(\.content) == [.picker])
    }

    @Test func snapshotEndpointServesSnapshotsOnly() throws {
        let bus = try BusFixture()
        try bus.start(.intentHandler)
        let record = try bus.send(.recordTension, user: "nora", body: #"{"level":5}"#)
        let client = try RawClient(endpoint: bus.endpoint(.stateSnapshot))

        let intent = RawClient.envelope(type: "RecordTensionIntent", user: "nora", body: #"{"level":3}"#)
        #expect(try client.errorReply(toJSON: intent)?.body.code == .unknownType)

        let request = RawClient.envelope(type: "SnapshotRequest", user: nil, body: #"{"prefix":"state.tensionCheck.nora"}"#)
        let reply = try #require(try client.exchange([Data(request.utf8)]))
        let snapshot = try bus.codec.decode(Envelope<SnapshotBody>.self, from: reply[0]).body
        #expect(snapshot.sequence == record.version)
        #expect(snapshot.states == [record])
    }
}
