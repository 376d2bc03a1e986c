import Foundation
import Testing
@testable import WidgetBusProtocol

@Suite("Envelope")
struct EnvelopeTests {
    let codec = WireCodec()

    @Test func encodesEveryHeaderFieldSorted() throws {
        let envelope = Envelope(
            id: "req-1", type: "RecordTensionIntent", user: "alice", sentAt: Wire.now,
            body: RecordTensionBody(level: 7))
        #expect(text(try codec.encode(envelope)) == """
            {"body":{"level":7},"id":"req-1","sentAt":"2026-11-22T09:30:00.000Z",\
            "type":"RecordTensionIntent","user":"alice","version":1}
            """)
    }

    @Test func absentOptionalsAreLeftOut() throws {
        let envelope = Envelope(id: "p", type: "Ping", sentAt: Wire.now, body: EmptyBody())
        let object = try jsonObject(try codec.encode(envelope))
        #expect(Set(object.keys) == ["body", "id", "sentAt", "type", "version"])
        #expect((object["body"] as? [String: Any])?.isEmpty == true)
    }

    @Test func replyNamesTheRequest() throws {
        let reply = Envelope(
            id: "r-1", type: MessageType.error.rawValue, user: "alice", sentAt: Wire.now, inReplyTo: "req-1",
            body: ErrorBody(code: .badJSON, message: "nope"))
        let object = try jsonObject(try codec.encode(reply))
        #expect(object["inReplyTo"] as? String == "req-1")
    }

    @Test func roundTripsThroughTheCodec() throws {
        let envelope = Envelope(
            id: "req-9", type: "MarkInterventionDoneIntent", user: "zoë", sentAt: Wire.now, inReplyTo: nil,
            body: MarkInterventionDoneBody(checkInId: "abc-123"))
        let data = try codec.encode(envelope)
        let decoded = try codec.decode(Envelope<MarkInterventionDoneBody>.self, from: data)
        #expect(decoded == envelope)
        #expect(try codec.encode(decoded) == data)
    }

    @Test func defaultsAreTheCurrentVersionAndAFreshLowercaseId() {
        let first = Envelope(type: "Ping", body: EmptyBody())
        let second = Envelope(type: "Ping", body: EmptyBody())
        #expect(first.version == ProtocolLimits.version)
        #expect(first.id == first.id.lowercased())
        #expect(UUID(uuidString: first.id) != nil)
        #expect(first.id != second.id)
        #expect(first.user == nil && first.inReplyTo == nil)
    }

    @Test func headerReadsAnyEnvelopeWithoutItsBody() throws {
        let json = #"{"version":1,"id":"x","type":"SomethingNew","user":"u","inReplyTo":"y","body":[1,{"deep":true}],"more":1}"#
        let header = try codec.decode(EnvelopeHeader.self, from: Data(json.utf8))
        #expect(header.version == 1)
        #expect(header.id == "x")
        #expect(header.type == "SomethingNew")
        #expect(header.user == "u")
        #expect(header.inReplyTo == "y")
    }

    @Test func headerToleratesMissingFields() throws {
        let header = try codec.decode(EnvelopeHeader.self, from: Data("{}".utf8))
        #expect(header.version == nil && header.id == nil && header.type == nil && header.user == nil)
    }

    @Test func envelopeOfJSONValuePassesAnyBodyThrough() throws {
        let json = #"{"body":{"level":7,"note":"x"},"id":"a","sentAt":"2026-11-22T09:30:00.000Z","type":"RecordTensionIntent","version":1}"#
        let envelope = try codec.decode(Envelope<JSONValue>.self, from: Data(json.utf8))
        #expect(envelope.body["level"] == .number(7))
        #expect(text(try codec.encode(envelope)) == json)
    }

    @Test func unknownEnvelopeFieldsAreIgnored() throws {
        let json = #"{"body":{"level":7},"id":"a","sentAt":"2026-11-22T09:30:00.000Z","type":"RecordTensionIntent","version":1,"x-trace":"t"}"#
        let envelope = try codec.decode(Envelope<RecordTensionBody>.self, from: Data(json.utf8))
        #expect(envelope.body == RecordTensionBody(level: 7))
    }
}
