import Foundation
import Testing
@testable import WidgetBusProtocol
import WidgetDomain

@Suite("Reply and event bodies")
struct RepliesCodingTests {
    let codec = WireCodec()

    static let records: [StateRecord] = [
        StateRecord(user: "alice", app: .tensionCheck, version: 0, state: .initial(for: .tensionCheck)),
        StateRecord(user: "bob", app: .tensionCheck, version: 7, state: .tensionCheck(Wire.suggestionState)),
        StateRecord(user: "zoë", app: .tensionCheck, version: .max, state: .tensionCheck(Wire.completedState)),
    ]

    @Test("StateRecord round-trips byte-identical", arguments: records)
    func stateRecordRoundTrip(record: StateRecord) throws {
        let data = try codec.encode(record)
        let decoded = try codec.decode(StateRecord.self, from: data)
        #expect(decoded == record)
        #expect(try codec.encode(decoded) == data)
    }

    @Test func stateRecordShape() throws {
        let record = StateRecord(user: "alice", app: .tensionCheck, version: 3, state: .initial(for: .tensionCheck))
        #expect(text(try codec.encode(record)) == #"{"app":"tensionCheck","state":{"phase":{"phase":"picker"}},"user":"alice","version":3}"#)
    }

    @Test func stateRecordOfAnUnknownAppIsRefused() {
        let json = #"{"app":"moodBoard","state":{},"user":"alice","version":3}"#
        #expect(throws: DecodingError.self) { try codec.decode(StateRecord.self, from: Data(json.utf8)) }
    }

    @Test func snapshotBodyRoundTrips() throws {
        let body = SnapshotBody(epoch: "0123456789abcdef", sequence: 42, states: Self.records)
        let data = try codec.encode(body)
        #expect(try codec.decode(SnapshotBody.self, from: data) == body)
        let object = try jsonObject(try codec.encode(SnapshotBody(epoch: "0123456789abcdef", sequence: 0, states: [])))
        #expect(object["epoch"] as? String == "0123456789abcdef")
        #expect(object["sequence"] as? Int == 0)
        #expect((object["states"] as? [Any])?.isEmpty == true)
    }

    @Test func stateChangedBodyRoundTrips() throws {
        let body = StateChangedBody(epoch: "0123456789abcdef", sequence: 12, causedBy: "req-1", record: Self.records[1])
        let data = try codec.encode(body)
        #expect(try codec.decode(StateChangedBody.self, from: data) == body)
        #expect(Set(try jsonObject(data).keys) == ["epoch", "sequence", "causedBy", "record"])
    }

    @Test func heartbeatRoundTrips() throws {
        let body = HeartbeatBody(publisher: "intent-handler", epoch: "0123456789abcdef", sequence: 99)
        #expect(text(try codec.encode(body)) == #"{"epoch":"0123456789abcdef","publisher":"intent-handler","sequence":99}"#)
        #expect(try codec.decode(HeartbeatBody.self, from: codec.encode(body)) == body)
    }

    @Test func pendingRecordsBodyRoundTrips() throws {
        let done = StressCheckIn(
            id: "abc-123", tensionLevel: 7, suggestedInterventionId: "diaphragm_breathing",
            interventionCompleted: true, createdAt: Wire.now)
        let body = PendingRecordsBody(user: "alice", records: [RevisedRecord(revision: 4, record: .tensionCheckIn(done))])
        let data = try codec.encode(body)
        #expect(try codec.decode(PendingRecordsBody.self, from: data) == body)
        #expect(text(data) == """
            {"records":[{"collection":"stress_check_ins","record":{"createdAt":"2026-11-22T09:30:00.000Z",\
            "id":"abc-123","interventionCompleted":true,"suggestedInterventionId":"diaphragm_breathing",\
            "tensionLevel":7},"revision":4}],"user":"alice"}
            """)
    }

    @Test func errorBodyCarriesTheCodeAsAString() throws {
        let body = ErrorBody(code: .unknownType, message: "unknown message type X")
        let data = try codec.encode(body)
        #expect(text(data) == #"{"code":"unknown_type","message":"unknown message type X"}"#)
        #expect(try codec.decode(ErrorBody.self, from: data) == body)
    }

    @Test func errorBodyKeepsCodesItDoesNotKnow() throws {
        let json = #"{"code":"rate_limited","message":"slow down"}"#
        let body = try codec.decode(ErrorBody.self, from: Data(json.utf8))
        #expect(body.code.rawValue == "rate_limited")
    }

    // MARK: Timelines

    static func timelineBody(_ state: TensionCheckState) -> TimelineBody {
        TimelineBody(
            kind: .tensionCheck, user: "alice", stateVersion: 5, profileVersion: 3, timeZone: "UTC", generatedAt: Wire.now,
            timeline: WidgetState.tensionCheck(state).timeline(for: .tensionCheck, now: Wire.now, timeZone: .gmt))
    }

    @Test func timelineBodyIsFlat() throws {
        let data = try codec.encode(Self.timelineBody(.initial))
        #expect(text(data) == """
            {"entries":[{"date":"2026-11-22T09:30:00.000Z","phase":"picker"}],"generatedAt":"2026-11-22T09:30:00.000Z",\
            "kind":"TensionCheckWidget","policy":{"date":"2026-11-22T10:00:00.000Z","type":"after"},"profileVersion":3,\
            "stateVersion":5,"timeZone":"UTC","user":"alice","validUntil":"2026-11-22T10:00:00.000Z"}
            """)
    }

    @Test("TimelineBody decodes as DecodedTimelineBody<TensionCheckPhase>", arguments: [
        TensionCheckState.initial, Wire.suggestionState, Wire.completedState,
    ])
    func timelineBodyDecodes(state: TensionCheckState) throws {
        let body = Self.timelineBody(state)
        let decoded = try codec.decode(DecodedTimelineBody<TensionCheckPhase>.self, from: codec.encode(body))
        let expected = TensionCheckTimelinePolicy.timeline(for: state, now: Wire.now)
        #expect(decoded.kind == .tensionCheck)
        #expect(decoded.user == "alice")
        #expect(decoded.stateVersion == 5 && decoded.profileVersion == 3)
        #expect(decoded.timeZone == "UTC" && decoded.generatedAt == Wire.now && decoded.validUntil == expected.reloadDate)
        #expect(decoded.entries == expected.entries)
        #expect(decoded.policy == expected.policy)
    }

    @Test func timelineChangedNestsTheFlatTimeline() throws {
        let body = TimelineChangedBody(epoch: "0123456789abcdef", sequence: 3, causedBy: "req-1", timeline: Self.timelineBody(.initial))
        let object = try jsonObject(try codec.encode(body))
        #expect(Set(object.keys) == ["epoch", "sequence", "causedBy", "timeline"])
        let timeline = try #require(object["timeline"] as? [String: Any])
        #expect(Set(timeline.keys) == [
            "kind", "user", "stateVersion", "profileVersion", "timeZone", "generatedAt", "validUntil", "entries", "policy",
        ])

        let uncaused = TimelineChangedBody(epoch: "0123456789abcdef", sequence: 4, causedBy: nil, timeline: Self.timelineBody(.initial))
        #expect(try jsonObject(try codec.encode(uncaused))["causedBy"] == nil)
    }
}
