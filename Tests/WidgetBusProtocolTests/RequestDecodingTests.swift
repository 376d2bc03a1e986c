import Foundation
import Testing
@testable import WidgetBusProtocol
import WidgetDomain

@Suite("Request decoding")
struct RequestDecodingTests {
    // MARK: Valid requests

    @Test func recordTensionDecodesToTheDomainIntent() throws {
        let request = try decodeRequest(requestJSON())
        #expect(request == Request(
            id: "req-1", type: .recordTension, user: "alice", sentAt: Wire.now,
            body: .intent(.tensionCheck(.recordTension(level: 7)))))
    }

    @Test func anEnvelopeEncodedByTheCodecDecodes() throws {
        let codec = WireCodec()
        let envelope = Envelope(
            id: "env-1", type: MessageType.recordTension.rawValue, user: "bob", sentAt: Wire.now,
            body: RecordTensionBody(level: 10))
        let request = try Request.decode(try codec.encode(envelope), codec: codec)
        #expect(request.body == .intent(.tensionCheck(.recordTension(level: 10))))
        #expect(request.id == "env-1")
        #expect(request.user == "bob")
    }

    @Test("every request type of the catalog decodes to its body", arguments: [
        (MessageType.recordTension, #"{"level":0}"#, RequestBody.intent(.tensionCheck(.recordTension(level: 0)))),
        (.markInterventionDone, #"{"checkInId":"abc-123"}"#, .intent(.tensionCheck(.markInterventionDone(checkInId: "abc-123")))),
        (.resetWidget, #"{}"#, .intent(.tensionCheck(.resetWidget))),
        (.setTimeZone, #"{"timeZone":"Europe/Paris"}"#, .setTimeZone(identifier: "Europe/Paris")),
        (.timelineRequest, #"{"kind":"TensionCheckWidget"}"#, .timeline(kind: .tensionCheck)),
        (.timelineRequest, #"{"kind":"TensionCheckWidget","minimumVersion":null}"#, .timeline(kind: .tensionCheck)),
        (.timelineRequest, #"{"kind":"JitterWidget","minimumVersion":42}"#, .timeline(kind: .jitter, minimumVersion: 42)),
        (.snapshotRequest, #"{"prefix":"state.tensionCheck."}"#, .snapshot(topicPrefix: "state.tensionCheck.")),
        (.pendingRecordsRequest, #"{}"#, .pendingRecords),
        (.ping, #"{}"#, .ping),
    ])
    func catalogRequests(type: MessageType, body: String, expected: RequestBody) throws {
        let request = try decodeRequest(requestJSON(type: quoted(type.rawValue), body: body))
        #expect(request.type == type)
        #expect(request.body == expected)
    }

    @Test("snapshot and ping need no user", arguments: [
        (MessageType.snapshotRequest, #"{"prefix":"state."}"#), (.ping, #"{}"#),
    ])
    func userlessRequests(type: MessageType, body: String) throws {
        let request = try decodeRequest(requestJSON(type: quoted(type.rawValue), user: nil, body: body))
        #expect(request.user == nil)
    }

    @Test("bodies the protocol does not read may be absent", arguments: [
        MessageType.resetWidget, .pendingRecordsRequest, .ping,
    ])
    func bodilessRequests(type: MessageType) throws {
        #expect(try decodeRequest(requestJSON(type: quoted(type.rawValue), body: nil)).type == type)
    }

    @Test("levels are checked by the widget rules, not the protocol", arguments: [4, -1, 11])
    func offScaleLevelsPassTheProtocol(level: Int) throws {
        let request = try decodeRequest(requestJSON(body: #"{"level":\#(level)}"#))
        #expect(request.body == .intent(.tensionCheck(.recordTension(level: level))))
    }

    @Test func unknownFieldsAreIgnored() throws {
        let json = requestJSON(
            body: #"{"level":7,"color":"red","nested":{"a":[1,2]}}"#,
            extra: #""traceId":"t-1","priority":9,"meta":{"client":"py"},"inReplyTo":null"#)
        #expect(try decodeRequest(json).body == .intent(.tensionCheck(.recordTension(level: 7))))
    }

    @Test func fieldOrderDoesNotMatter() throws {
        let json = #"{"body":{"level":3},"user":"alice","type":"RecordTensionIntent","sentAt":"2026-11-22T09:30:00Z","id":"x","version":1}"#
        let request = try decodeRequest(json)
        #expect(request.body == .intent(.tensionCheck(.recordTension(level: 3))))
        #expect(request.sentAt == Wire.now)
    }

    // MARK: bad_json

    @Test("non-JSON payloads are bad_json", arguments: [
        "not json", "", "{", "{\"version\":1,", "\u{FEFF}garbage", "{'version':1}",
    ])
    func nonJSON(payload: String) {
        #expect(refusal(payload) == .badJSON)
    }

    @Test func invalidUTF8IsBadJSON() {
        #expect(refusal(Data([0xFF, 0xFE, 0x7B, 0x7D])) == .badJSON)
        #expect(refusal(Data([0x7B, 0x22, 0xC3, 0x28, 0x22, 0x3A, 0x31, 0x7D])) == .badJSON)
    }

    @Test("JSON that is not an object is bad_json", arguments: [
        #"[]"#, #"[{"version":1}]"#, #""hello""#, #"42"#, #"true"#, #"{"version":1}"# + "]",
    ])
    func nonObjectJSON(payload: String) {
        #expect(refusal(payload) == .badJSON)
    }

    @Test func nullPayloadIsBadJSON() {
        // ErrorCode.badJSON: "The payload is not valid UTF-8 JSON, or not a JSON object."
        #expect(refusal("null") == .badJSON)
    }

    // MARK: type and version

    @Test("unknown types are unknown_type", arguments: ["FlyIntent", "recordTensionIntent", "", "RECORDTENSIONINTENT"])
    func unknownType(type: String) {
        #expect(refusal(requestJSON(type: quoted(type))) == .unknownType)
    }

    /// Replies and events, by the catalog's naming rule.
    static let notRequests: [MessageType] = MessageType.allCases.filter { type in
        type.rawValue.hasSuffix("Reply") || type.rawValue.hasSuffix("Changed")
            || ["Pong", "Error", "Heartbeat"].contains(type.rawValue)
    }

    @Test("replies and events sent as requests are unknown_type", arguments: notRequests)
    func replyTypeAsRequest(type: MessageType) {
        #expect(refusal(requestJSON(type: quoted(type.rawValue), body: "{}")) == .unknownType)
    }

    @Test func theSeedsRepliesAndEventsAreNotRequests() {
        #expect(Set(Self.notRequests).isSuperset(of: [
            .stateReply, .timelineReply, .snapshotReply, .pendingRecordsReply, .pong, .error,
            .stateChanged, .timelineChanged, .heartbeat,
        ]))
        #expect(Set(MessageType.allCases.map(\.rawValue)).count == MessageType.allCases.count)
    }

    @Test("other versions are unsupported_version", arguments: [0, 2, -1, 99])
    func unsupportedVersion(version: Int) {
        #expect(refusal(requestJSON(version: "\(version)")) == .unsupportedVersion)
    }

    @Test func versionIsCheckedBeforeType() {
        #expect(refusal(requestJSON(version: "2", type: #""FlyIntent""#)) == .unsupportedVersion)
    }

    // MARK: missing_field

    @Test("a request of a type that needs a user, without one, is missing_field", arguments: [
        (MessageType.recordTension, #"{"level":7}"#),
        (.markInterventionDone, #"{"checkInId":"x"}"#),
        (.resetWidget, #"{}"#),
        (.timelineRequest, #"{"kind":"TensionCheckWidget"}"#),
        (.pendingRecordsRequest, #"{}"#),
    ])
    func missingUser(type: MessageType, body: String) {
        #expect(refusal(requestJSON(type: quoted(type.rawValue), user: nil, body: body)) == .missingField)
        #expect(refusal(requestJSON(type: quoted(type.rawValue), user: "null", body: body)) == .missingField)
    }

    @Test("absent envelope fields are missing_field", arguments: ["version", "id", "type", "sentAt", "body"])
    func missingEnvelopeField(field: String) {
        let json = switch field {
        case "version": requestJSON(version: nil)
        case "id": requestJSON(id: nil)
        case "type": requestJSON(type: nil)
        case "sentAt": requestJSON(sentAt: nil)
        default: requestJSON(body: nil)
        }
        #expect(refusal(json) == .missingField)
    }

    @Test("absent body fields are missing_field", arguments: [
        (MessageType.recordTension, #"{}"#),
        (.recordTension, #"{"Level":7}"#),
        (.markInterventionDone, #"{}"#),
        (.timelineRequest, #"{}"#),
        (.snapshotRequest, #"{}"#),
    ])
    func missingBodyField(type: MessageType, body: String) {
        #expect(refusal(requestJSON(type: quoted(type.rawValue), body: body)) == .missingField)
    }

    @Test func nullLevelIsMissingField() {
        #expect(refusal(requestJSON(body: #"{"level":null}"#)) == .missingField)
    }

    // MARK: invalid_field

    @Test("wrongly typed fields are invalid_field", arguments: [
        requestJSON(body: #"{"level":"7"}"#),
        requestJSON(body: #"{"level":true}"#),
        requestJSON(body: #"{"level":[7]}"#),
        requestJSON(body: #"[7]"#),
        requestJSON(body: #""7""#),
        requestJSON(version: #""1""#),
        requestJSON(id: "17"),
        requestJSON(type: "1"),
        requestJSON(user: "42"),
        requestJSON(sentAt: "1795339800"),
        requestJSON(type: #""MarkInterventionDoneIntent""#, body: #"{"checkInId":5}"#),
    ])
    func wrongType(json: String) {
        #expect(refusal(json) == .invalidField)
    }

    @Test("impossible values are invalid_field", arguments: [
        requestJSON(sentAt: #""yesterday""#),
        requestJSON(sentAt: #""2026-13-45T99:00:00Z""#),
        requestJSON(type: #""TimelineRequest""#, body: #"{"kind":"NoSuchWidget"}"#),
        requestJSON(type: #""TimelineRequest""#, body: #"{"kind":"JitterWidget","minimumVersion":-1}"#),
        requestJSON(type: #""TimelineRequest""#, body: #"{"kind":"JitterWidget","minimumVersion":"5"}"#),
        requestJSON(type: #""TimelineRequest""#, body: #"{"kind":"JitterWidget","minimumVersion":1.5}"#),
    ])
    func impossibleValue(json: String) {
        #expect(refusal(json) == .invalidField)
    }

    @Test("numbers that are not an Int are invalid_field, not bad_json", arguments: [
        #"7.5"#, #"99999999999999999999999"#, #"1e300"#,
    ])
    func nonIntegralLevel(level: String) {
        // The payload is a valid JSON object; only the level's value is wrong. Foundation reports
        // these as a root-level dataCorrupted ("not valid JSON") without a path.
        #expect(refusal(requestJSON(body: #"{"level":\#(level)}"#)) == .invalidField)
    }

    @Test func emptyIdIsInvalidField() {
        #expect(refusal(requestJSON(id: #""""#)) == .invalidField)
    }

    @Test func idLengthIsBounded() throws {
        let longest = String(repeating: "i", count: ProtocolLimits.maxMessageIDBytes)
        #expect(try decodeRequest(requestJSON(id: quoted(longest))).id == longest)
        #expect(refusal(requestJSON(id: quoted(longest + "i"))) == .invalidField)
    }

    // MARK: payload_too_large

    @Test func oversizePayloadIsRefusedWithoutParsing() {
        let garbage = Data(repeating: UInt8(ascii: "x"), count: ProtocolLimits.maxPayloadBytes + 1)
        #expect(refusal(garbage) == .payloadTooLarge)
    }

    @Test func oversizeValidEnvelopeIsRefused() {
        let json = requestJSON()
        let padded = json + String(repeating: " ", count: ProtocolLimits.maxPayloadBytes + 1 - json.utf8.count)
        #expect(padded.utf8.count == ProtocolLimits.maxPayloadBytes + 1)
        #expect(refusal(padded) == .payloadTooLarge)
    }

    @Test func payloadOfExactlyTheLimitIsAccepted() throws {
        let json = requestJSON()
        let padded = json + String(repeating: " ", count: ProtocolLimits.maxPayloadBytes - json.utf8.count)
        #expect(padded.utf8.count == ProtocolLimits.maxPayloadBytes)
        #expect(try decodeRequest(padded).id == "req-1")
    }

    @Test func limitIs64KiB() {
        #expect(ProtocolLimits.maxPayloadBytes == 65_536)
        #expect(ProtocolLimits.version == 1)
    }

    // MARK: invalid_user

    @Test("invalid users in an envelope are invalid_user", arguments: ["", "..", ".", "a/b", "a\u{0}b"])
    func invalidUser(user: String) {
        #expect(refusal(requestJSON(user: quoted(user))) == .invalidUser)
    }

    @Test func invalidUserIsCheckedOnUserlessTypesToo() {
        #expect(refusal(requestJSON(type: #""Ping""#, user: #"".""#, body: "{}")) == .invalidUser)
    }
}
