import Foundation
import Testing
import WidgetBusProtocol
import WidgetDomain

/// Each endpoint reads requests with its own catalog: the types it serves, `notServed` for any
/// other request type, and the same refusal everywhere for a body that does not read.
@Suite("Endpoint catalogs")
struct EndpointCatalogTests {
    let codec = WireCodec()

    func payload(_ type: MessageType, user: String? = "alice", body: String) -> Data {
        Data(requestJSON(type: quoted(type.rawValue), user: user.map(quoted), body: body).utf8)
    }

    static let everyRequest: [(MessageType, String)] = [
        (.recordTension, #"{"level":7}"#), (.setTimeZone, #"{"timeZone":"Europe/Paris"}"#), (.appForeground, "{}"),
        (.pendingRecordsRequest, "{}"), (.pendingUsersRequest, "{}"),
        (.acknowledgeRecords, #"{"records":[{"collection":"tension_check_ins","id":"c1","revision":3}]}"#),
        (.timelineRequest, #"{"kind":"TensionCheckWidget"}"#), (.snapshotRequest, #"{"prefix":"state."}"#),
        (.syncRequest, "{}"), (.syncStatusRequest, "{}"), (.ping, "{}"),
    ]

    /// The request types `Body`'s endpoint serves, of ``everyRequest``.
    func served<Body: RequestBodyCatalog & Equatable>(by _: Body.Type, notServed: Body) throws -> [MessageType] {
        try Self.everyRequest.compactMap { type, body in
            try EndpointRequest<Body>.decode(payload(type, body: body), codec: codec).body == notServed ? nil : type
        }
    }

    @Test func eachEndpointServesItsOwnTypesAndNoOther() throws {
        #expect(
            try served(by: IntentsCatalog.self, notServed: .notServed) == [
                .recordTension, .setTimeZone, .appForeground, .pendingRecordsRequest, .pendingUsersRequest, .acknowledgeRecords, .ping,
            ])
        #expect(try served(by: StateSnapshotCatalog.self, notServed: .notServed) == [.snapshotRequest, .ping])
        #expect(try served(by: TimelinesCatalog.self, notServed: .notServed) == [.timelineRequest, .snapshotRequest, .ping])
        #expect(try served(by: SyncCatalog.self, notServed: .notServed) == [.syncRequest, .syncStatusRequest, .ping])
        #expect(try served(by: MetricsRequestBody.self, notServed: .notServed) == [.snapshotRequest, .ping])
    }

    @Test func aServedRequestKeepsWhatItsBodySays() throws {
        let timeline = try TimelinesRequest.decode(payload(.timelineRequest, body: #"{"kind":"DietProgressWidget"}"#), codec: codec)
        #expect(timeline.body == .timeline(kind: .dietProgress, minimumVersion: nil) && timeline.user == "alice")
        let reading = try TimelinesRequest.decode(
            payload(.timelineRequest, body: #"{"kind":"DietProgressWidget","minimumVersion":17}"#), codec: codec)
        #expect(reading.body == .timeline(kind: .dietProgress, minimumVersion: 17))
        let intent = try IntentsRequest.decode(payload(.recordTension, body: #"{"level":10}"#), codec: codec)
        #expect(intent.body == .intent(.tensionCheck(.recordTension(level: 10))))
    }

    @Test func aBodyThatDoesNotReadIsRefusedAlikeOnEveryEndpoint() {
        let bad = payload(.recordTension, body: #"{"level":"high"}"#)
        let codes = [
            code(IntentsRequest.self, bad), code(StateSnapshotRequest.self, bad), code(TimelinesRequest.self, bad),
            code(SyncAgentRequest.self, bad), code(MetricsRequest.self, bad),
        ]
        #expect(codes == Array(repeating: ErrorCode.invalidField, count: 5), "the body is read before the type is turned away")
    }

    /// The code `payload` is refused with when read as `Incoming`; nil when it is not refused.
    private func code<Incoming: DecodedRequest>(_: Incoming.Type, _ payload: Data) -> ErrorCode? {
        do throws(ProtocolError) {
            _ = try Incoming.decode(payload, codec: codec)
            return nil
        } catch {
            return error.code
        }
    }
}
