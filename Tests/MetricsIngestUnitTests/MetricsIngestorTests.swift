import Foundation
import Logging
import Testing
import WidgetBusProtocol
import WidgetBusTestSupport
import WidgetDomain

@testable import MetricsIngest

/// metrics-ingest's rules in-process: pushed messages as its PULL hands them over, a real SQLite
/// store in a temporary folder, a clock set by hand.
@Suite struct MetricsIngestorTests {
    final class Harness {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("metrics-ingestor-\(UUID().uuidString)")
        let codec = WireCodec()
        /// 2026-11-22 09:30 UTC, when the samples below were pushed.
        let clock = ManualClock(Date(timeIntervalSince1970: 1_795_339_800))
        let ingestor: MetricsIngestor

        init() throws {
            let store = try MetricsStore(path: folder.appendingPathComponent("metrics-ingest.sqlite").path, codec: codec)
            ingestor = try MetricsIngestor(
                store: store, codec: codec, epoch: "00000000000000f6", logger: Logger(label: "test"), clock: clock)
        }

        deinit {
            try? FileManager.default.removeItem(at: folder)
        }

        /// A `MetricBatch` of `samples` (JSON objects) under `id`, as one pushed message.
        static func batch(_ samples: [String], id: String = MessageID.random()) -> [Data] {
            [Data(#"{"version":1,"id":"\#(id)","type":"MetricBatch","sentAt":"2026-11-22T09:30:00Z","body":{"samples":[\#(samples.joined(separator: ","))]}}"#.utf8)]
        }

        static func stress(_ user: String, score: Double, at time: String = "09:29:30") -> String {
            #"{"kind":"stress","score":\#(score),"source":"Apple Watch","takenAt":"2026-11-22T\#(time)Z","user":"\#(user)"}"#
        }

        func ingest(_ messages: [[Data]]) -> [MetricsIngestor.Event] {
            ingestor.ingest(messages, timeZone: { _ in .gmt })
        }

        func changed(_ event: MetricsIngestor.Event) throws -> MetricsChangedBody {
            try codec.decode(Envelope<MetricsChangedBody>.self, from: event.payload).body
        }
    }

    @Test func aBurstIsCommittedOnceWithOneEventPerUserNamingTheLastMessage() throws {
        let harness = try Harness()
        let events = harness.ingest([
            Harness.batch([Harness.stress("ann", score: 40)], id: "m1"),
            Harness.batch([Harness.stress("bea", score: 20), Harness.stress("ann", score: 61, at: "09:29:40")], id: "m2"),
        ])
        #expect(events.map(\.topic) == [Topic.metrics(user: "ann"), Topic.metrics(user: "bea")])
        #expect(events.map(\.sequence) == [1, 2])
        let ann = try harness.changed(events[0])
        #expect(ann.causedBy == "m2" && ann.aggregate.latestStress?.stressLevel == 61)
        #expect(harness.ingestor.sequence == 2 && harness.ingestor.records["ann"]?.version == 1)
    }

    @Test func aMessageSeenBeforeIsCountedAsADuplicateAndChangesNothing() throws {
        let harness = try Harness()
        let message = Harness.batch([Harness.stress("ann", score: 40)], id: "again")
        _ = harness.ingest([message])
        #expect(harness.ingest([message]).isEmpty)
        #expect(harness.ingestor.status.duplicates == 1 && harness.ingestor.status.accepted == 1)
    }

    @Test func samplesOutOfBoundsAreRefusedByReasonAndTheRestKept() throws {
        let harness = try Harness()
        let events = harness.ingest([
            Harness.batch([
                Harness.stress("ann", score: 140),
                Harness.stress("ann", score: 30, at: "09:40:00"),  // ten minutes ahead of the clock
                Harness.stress("ann", score: 35),
            ])
        ])
        #expect(events.count == 1)
        #expect(try harness.changed(events[0]).aggregate.latestStress?.stressLevel == 35)
        let status = harness.ingestor.status
        #expect(status.accepted == 1)
        #expect(status.rejectedSamples[MetricRejection.Reason.measurementInFuture.rawValue] == 1)
        #expect(status.rejectedSamples.values.reduce(0, +) == 2)
    }

    @Test func rrIntervalsBecomeRMSSDAndSDNNWithArtefactsLeftOut() throws {
        let harness = try Harness()
        let intervals = "[812,798,805.5,820,790,801,815,809,795,803,811,2500]"
        let events = harness.ingest([
            Harness.batch([#"{"intervals":\#(intervals),"kind":"rr","source":"Apple Watch","takenAt":"2026-11-22T09:20:00Z","user":"ann"}"#])
        ])
        let event = try #require(events.first)
        let reading = try #require(try harness.changed(event).aggregate.latestRR)
        #expect(reading.analysis.artefacts == 1 && reading.analysis.cleanIntervals == 11)
        #expect(reading.analysis.rmssd > 0 && reading.analysis.sdnn > 0)
    }
}
