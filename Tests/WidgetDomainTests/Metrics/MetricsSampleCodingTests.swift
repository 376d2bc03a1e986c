import Foundation
import Testing
@testable import WidgetDomain

@Suite("Metrics sample coding")
struct MetricsSampleCodingTests {
    typealias F = MetricsFixture

    @Test("each kind round-trips flat, tagged by kind", arguments: [
        (MetricSample.Reading.hrv(milliseconds: 52.5, measure: .rmssd), #""kind":"hrv","measure":"rmssd","milliseconds":52.5"#),
        (.stress(score: 38), #""kind":"stress","score":38"#),
        (.rr(intervals: [812, 790]), #""intervals":[812,790],"kind":"rr""#),
    ])
    func roundTrip(reading: MetricSample.Reading, fragment: String) throws {
        let sample = F.sample(reading)
        let data = try sortedISOEncoder().encode(sample)
        #expect(String(decoding: data, as: UTF8.self).contains(fragment))
        #expect(try isoDecoder().decode(MetricSample.self, from: data) == sample)
    }

    @Test func unknownKindAndMeasureHaveTheirOwnReasons() {
        let base = #""user":"alice","takenAt":"2026-11-22T09:30:00Z","source":"watch""#
        #expect(decodingReason(#"{"kind":"spo2",\#(base)}"#) == .unknownKind)
        #expect(decodingReason(#"{"kind":"hrv","measure":"pnn50","milliseconds":40,\#(base)}"#) == .unknownMeasure)
        #expect(decodingReason(#"{"kind":"stress",\#(base)}"#) == nil)  // missing score: a plain decoding error
    }

    private func decodingReason(_ json: String) -> MetricRejection.Reason? {
        do {
            _ = try isoDecoder().decode(MetricSample.self, from: Data(json.utf8))
            Issue.record("decoded \(json)")
            return nil
        } catch let rejection as MetricRejection {
            return rejection.reason
        } catch {
            return nil
        }
    }
}
