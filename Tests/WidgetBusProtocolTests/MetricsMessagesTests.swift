import Foundation
import Testing
@testable import WidgetBusProtocol
import WidgetDomain

@Suite("Metrics messages")
struct MetricsMessagesTests {
    static let hrv = #"{"kind":"hrv","user":"alice","takenAt":"2026-11-22T09:30:00.000Z","source":"watch","milliseconds":52.5,"measure":"rmssd"}"#
    static let stress = #"{"kind":"stress","user":"bob","takenAt":"2026-11-22T09:30:00Z","source":"ring","score":38}"#

    static func push(_ type: String = "MetricBatch", body: String?, user: String? = nil) throws(ProtocolError) -> MetricsPush {
        try MetricsPush.decode(
            Data(requestJSON(type: quoted(type), user: user.map(quoted), body: body).utf8), codec: WireCodec())
    }

    static func refusal(_ type: String = "MetricBatch", body: String?) -> ErrorCode? {
        do {
            _ = try push(type, body: body)
            return nil
        } catch {
            return error.code
        }
    }

    @Test func aSingleSampleDecodes() throws {
        let push = try Self.push("MetricSample", body: Self.hrv)
        #expect(push.type == .metricSample && push.id == "req-1")
        #expect(try push.samples.map { try $0.get() } == [
            MetricSample(user: "alice", takenAt: Wire.now, source: "watch", reading: .hrv(milliseconds: 52.5, measure: .rmssd)),
        ])
    }

    @Test func badSamplesOfABatchAreRefusedOneByOne() throws {
        let body = #"{"samples":[\#(Self.hrv),{"kind":"spo2"},42,\#(Self.stress),{"kind":"stress","user":"a/b","takenAt":"2026-11-22T09:30:00Z","source":"x","score":1},{"kind":"hrv","user":"c","takenAt":"yesterday","source":"x","milliseconds":3,"measure":"rmssd"},{"kind":"hrv","user":"c","takenAt":"2026-11-22T09:30:00Z","source":"x","milliseconds":3,"measure":"pnn50"}]}"#
        let push = try Self.push(body: body)
        let outcomes = push.samples.map { result -> String in
            switch result {
            case .success(let sample): sample.user
            case .failure(let rejection): rejection.reason.rawValue
            }
        }
        #expect(outcomes == ["alice", "unknown_kind", "malformed_sample", "bob", "invalid_user", "malformed_sample", "unknown_measure"])
    }

    @Test func aMalformedSingleSampleIsASampleRejectionNotAMessageOne() throws {
        let push = try Self.push("MetricSample", body: #"{"kind":"stress"}"#)
        guard case .failure(let rejection) = push.samples.first else {
            Issue.record("expected a rejection")
            return
        }
        #expect(rejection.reason == .malformedSample)
        #expect(rejection.message.contains("user"))
    }

    @Test func messageLevelRefusalsUseTheProtocolsCodes() {
        #expect(Self.refusal(body: nil) == .missingField)
        #expect(Self.refusal(body: "null") == .missingField)
        #expect(Self.refusal("MetricSample", body: nil) == .missingField)
        #expect(Self.refusal(body: "{}") == .missingField)
        #expect(Self.refusal(body: #"{"samples":{}}"#) == .invalidField)
        #expect(Self.refusal("RecordTensionIntent", body: #"{"level":3}"#) == .unknownType)
        #expect(Self.refusal("Heartbeat", body: "{}") == .unknownType)
        let tooMany = "{\"samples\":[" + Array(repeating: Self.stress, count: 1_001).joined(separator: ",") + "]}"
        #expect(Self.refusal(body: tooMany) == .invalidField)
    }

    @Test func aFullBatchFitsAndTheLimitIsOneMebibyte() throws {
        let full = "{\"samples\":[" + Array(repeating: Self.stress, count: 1_000).joined(separator: ",") + "]}"
        #expect(try Self.push(body: full).samples.count == 1_000)
        let oversize = Data(repeating: 0x20, count: ProtocolLimits.maxMetricsPayloadBytes + 1)
        #expect(throws: ProtocolError.self) { try MetricsPush.decode(oversize, codec: WireCodec()) }
        do {
            _ = try MetricsPush.decode(oversize, codec: WireCodec())
        } catch {
            #expect(error.code == .payloadTooLarge)
        }
    }

    @Test func anEncodedBatchDecodes() throws {
        let codec = WireCodec()
        let samples = [
            MetricSample(user: "u1", takenAt: Wire.now, source: "s", reading: .rr(intervals: [800, 810])),
            MetricSample(user: "u2", takenAt: Wire.now, source: "s", reading: .stress(score: 12.5)),
        ]
        let payload = try codec.encode(Envelope(type: MessageType.metricBatch.rawValue, body: MetricBatchBody(samples: samples)))
        #expect(try MetricsPush.decode(payload, codec: codec).samples.map { try $0.get() } == samples)
    }

    @Test func theSnapshotEndpointServesStatusSnapshotAndPing() throws {
        func body(_ type: String, _ body: String = "{}") throws -> MetricsRequestBody {
            try MetricsRequest.decode(Data(requestJSON(type: quoted(type), user: nil, body: body).utf8), codec: WireCodec()).body
        }
        #expect(try body("MetricsStatusRequest") == .status)
        #expect(try body("SnapshotRequest", #"{"prefix":"metrics."}"#) == .snapshot(topicPrefix: "metrics."))
        #expect(try body("Ping") == .ping)
        #expect(try body("PendingUsersRequest") == .notServed)
        // Another endpoint's request is checked as anywhere else before it is found not served.
        #expect(throws: ProtocolError.self) { try body("SnapshotRequest", "{}") }
        #expect(throws: ProtocolError.self) { try body("MetricSample", Self.hrv) }
    }

    @Test func otherEndpointsDoNotServeMetricsTypes() {
        #expect(WidgetBusProtocolTests.refusal(requestJSON(type: quoted("MetricsStatusRequest"), body: "{}")) == .unknownType)
        #expect(WidgetBusProtocolTests.refusal(requestJSON(type: quoted("MetricBatch"), body: #"{"samples":[]}"#)) == .unknownType)
        #expect(WidgetBusProtocolTests.refusal(requestJSON(type: quoted("MetricsChanged"), body: "{}")) == .unknownType)
    }

    @Test func topicsAndEndpoints() {
        #expect(Topic.metrics(user: "alice") == "metrics.alice")
        #expect(BusEndpoint.metrics.resolve(in: [:]) == "tcp://127.0.0.1:5580")
        #expect(BusEndpoint.metricsEvents.resolve(in: [:]) == "tcp://127.0.0.1:5581")
        #expect(BusEndpoint.metricsSnapshot.resolve(in: [:]) == "tcp://127.0.0.1:5582")
    }

    @Test func statusRoundTrips() throws {
        let codec = WireCodec()
        let status = MetricsStatusBody(
            accepted: 3, duplicates: 1, rejectedSamples: ["invalid_hrv": 2, "malformed_sample": 1],
            rejectedMessages: ["bad_json": 1], sequence: 3, users: 2)
        #expect(try codec.decode(MetricsStatusBody.self, from: codec.encode(status)) == status)
        #expect(status.rejected == 3)
    }
}
