import Foundation
import Testing
@testable import WidgetDomain

@Suite("Metrics aggregate")
struct MetricsAggregateTests {
    typealias F = MetricsFixture

    // MARK: Hourly buckets in the user's zone

    @Test func readingsInOneLocalHourAreAveraged() throws {
        let aggregate = try F.aggregate([
            (F.rmssd(50), F.utc("2026-11-22T08:05:00Z")), (F.rmssd(55), F.utc("2026-11-22T08:55:00Z")),
            (F.rmssd(61), F.utc("2026-11-22T08:30:00Z")),
        ])
        let hour = try #require(aggregate.hourlyRMSSD.first)
        #expect(aggregate.hourlyRMSSD.count == 1)
        #expect(hour.hourStart == F.utc("2026-11-22T08:00:00Z") && hour.samples == 3)
        #expect(abs(hour.milliseconds - 166.0 / 3) < 1e-9)
    }

    /// Asia/Kolkata is UTC+5:30: 23:40 and 00:10 local are one UTC hour (18:00Z) but two local
    /// hours on two local days.
    @Test func bucketsFollowAHalfHourZoneAcrossMidnight() throws {
        let kolkata = F.calendar("Asia/Kolkata")
        let aggregate = try F.aggregate(
            [(F.rmssd(40), F.utc("2026-11-21T18:10:00Z")), (F.rmssd(60), F.utc("2026-11-21T18:40:00Z"))], calendar: kolkata)
        #expect(aggregate.hourlyRMSSD.map(\.hourStart) == [F.utc("2026-11-21T17:30:00Z"), F.utc("2026-11-21T18:30:00Z")])
        #expect(aggregate.hourlyRMSSD.map(\.milliseconds) == [40, 60])
        #expect(aggregate.hourlyRMSSD.map { kolkata.dayKey(for: $0.hourStart).rawValue } == ["2026-11-21", "2026-11-22"])
        #expect(aggregate.hourlyRMSSD.map { kolkata.hour(of: $0.hourStart) } == [23, 0])

        // In UTC the same two readings share the 18:00Z hour.
        let utc = try F.aggregate([(F.rmssd(40), F.utc("2026-11-21T18:10:00Z")), (F.rmssd(60), F.utc("2026-11-21T18:40:00Z"))])
        #expect(utc.hourlyRMSSD == [HRVHourlyValue(hourStart: F.utc("2026-11-21T18:00:00Z"), milliseconds: 50, samples: 2)])
    }

    @Test func bucketsCrossAWholeHourZonesMidnight() throws {
        let berlin = F.calendar("Europe/Berlin")  // UTC+1 in November
        let aggregate = try F.aggregate(
            [(F.sdnn(70), F.utc("2026-11-21T22:59:59Z")), (F.sdnn(30), F.utc("2026-11-21T23:00:00Z"))], calendar: berlin)
        #expect(aggregate.hourlySDNN.map { berlin.dayKey(for: $0.hourStart).rawValue } == ["2026-11-21", "2026-11-22"])
        #expect(aggregate.hourlySDNN.map { berlin.hour(of: $0.hourStart) } == [23, 0])
    }

    @Test func theRepeatedHourOfAFallBackIsTwoBuckets() throws {
        let newYork = F.calendar("America/New_York")
        // 01:30 EDT and 01:30 EST on 2026-11-01.
        let aggregate = try F.aggregate(
            [(F.rmssd(40), F.utc("2026-11-01T05:30:00Z")), (F.rmssd(50), F.utc("2026-11-01T06:30:00Z"))],
            calendar: newYork, now: F.utc("2026-11-01T12:00:00Z"))
        #expect(aggregate.hourlyRMSSD.map(\.hourStart) == [F.utc("2026-11-01T05:00:00Z"), F.utc("2026-11-01T06:00:00Z")])
    }

    // MARK: Order and window

    @Test func aLateReadingIsPlacedInTimeOrder() throws {
        let aggregate = try F.aggregate([
            (F.rmssd(50), F.utc("2026-11-22T06:10:00Z")), (F.rmssd(70), F.utc("2026-11-22T08:10:00Z")),
            (F.rmssd(60), F.utc("2026-11-22T07:10:00Z")),
        ])
        #expect(aggregate.hourlyRMSSD.map(\.milliseconds) == [50, 60, 70])
    }

    @Test func onlyTheLast24HoursWithReadingsAreKept() throws {
        let base = F.utc("2026-11-21T00:15:00Z")
        let readings = (0..<30).map { (F.rmssd(Double(20 + $0)), base.addingTimeInterval(Double($0) * 3_600)) }
        let aggregate = try F.aggregate(readings)
        #expect(aggregate.hourlyRMSSD.count == 24)
        #expect(aggregate.hourlyRMSSD.first?.milliseconds == 26)
        #expect(aggregate.hourlyRMSSD.last?.milliseconds == 49)

        // An hour older than the full window changes nothing; a late one inside it still joins.
        let late = try F.aggregate([(F.rmssd(99), base)], startingFrom: aggregate)
        #expect(late == aggregate)
        let inside = try F.aggregate([(F.rmssd(36), base.addingTimeInterval(10 * 3_600 + 60))], startingFrom: aggregate)
        #expect(inside.hourlyRMSSD[4] == HRVHourlyValue(hourStart: F.utc("2026-11-21T10:00:00Z"), milliseconds: 33, samples: 2))
    }

    @Test func aLateStressScoreNeverReplacesANewerOne() throws {
        let aggregate = try F.aggregate([
            (.stress(score: 38), F.utc("2026-11-22T09:00:00Z")), (.stress(score: 80), F.utc("2026-11-22T08:00:00Z")),
        ])
        #expect(aggregate.latestStress == StressMeasurement(stressLevel: 38, measuredAt: F.utc("2026-11-22T09:00:00Z")))
        let newer = try F.aggregate([(.stress(score: 71), F.utc("2026-11-22T09:10:00Z"))], startingFrom: aggregate)
        #expect(newer.latestStress?.stressLevel == 71)
        #expect(newer.latestStress?.category == .high)
    }

    @Test("the latest score's category uses the widget's thresholds", arguments: [
        (24.4, StressCategory.relaxed), (24.5, .mild), (44.49, .mild), (44.5, .moderate), (69.4, .moderate), (69.5, .high),
        (0, .relaxed), (100, .high),
    ])
    func categoryThresholds(score: Double, category: StressCategory) throws {
        #expect(try F.aggregate([(.stress(score: score), F.now)]).latestStress?.category == category)
    }

    // MARK: Summary

    @Test func averageMaximumAndTrendOfTheHourlyValues() throws {
        let aggregate = try F.aggregate([
            (F.rmssd(50), F.utc("2026-11-22T06:10:00Z")), (F.rmssd(55), F.utc("2026-11-22T06:40:00Z")),
            (F.rmssd(60), F.utc("2026-11-22T07:10:00Z")), (F.rmssd(45), F.utc("2026-11-22T08:10:00Z")),
        ])
        #expect(aggregate.hourlyRMSSD.map(\.milliseconds) == [52.5, 60, 45])
        let summary = try #require(aggregate.hrvSummary)
        #expect(summary.average == 52.5)
        #expect(summary.maximum == 60)
        // (45 − 52.5) × 100 / 52.5 = −14.29 → −14, down.
        #expect(summary.trend == HRVTrend(latest: 45, average: 52.5))
        #expect(summary.trend?.percent == -14)
        #expect(summary.trend?.direction == .down)
    }

    @Test func rrRecordingsFeedBothMeasuresAndRMSSDIsCharted() throws {
        let aggregate = try F.aggregate([(.rr(intervals: RRIntervalAnalysisTests.clean), F.utc("2026-11-22T09:00:00Z"))])
        let analysis = RRIntervalAnalysis.analyze(RRIntervalAnalysisTests.clean)!
        #expect(aggregate.hourlyRMSSD.map(\.milliseconds) == [analysis.rmssd])
        #expect(aggregate.hourlySDNN.map(\.milliseconds) == [analysis.sdnn])
        #expect(aggregate.latestRR == .init(takenAt: F.utc("2026-11-22T09:00:00Z"), analysis: analysis))
        #expect(aggregate.widgetHRV?.measure == .rmssd)
    }

    @Test func sdnnIsChartedOnlyWithoutAnyRMSSD() throws {
        let sdnnOnly = try F.aggregate([(F.sdnn(80), F.utc("2026-11-22T07:10:00Z"))])
        #expect(sdnnOnly.widgetHRV?.measure == .sdnn)
        #expect(sdnnOnly.hrvSummary?.average == 80)
        let both = try F.aggregate([(F.rmssd(40), F.utc("2026-11-22T06:10:00Z"))], startingFrom: sdnnOnly)
        #expect(both.widgetHRV?.measure == .rmssd)
        #expect(both.hrvSummary?.average == 40)
        #expect(MetricsAggregate.empty.widgetHRV == nil && MetricsAggregate.empty.hrvSummary == nil)
    }

    // MARK: Coding

    @Test func roundTripsAndWritesTheDerivedFigures() throws {
        let aggregate = try F.aggregate([
            (.stress(score: 38), F.utc("2026-11-22T09:00:00Z")), (F.rmssd(50), F.utc("2026-11-22T08:10:00Z")),
            (.rr(intervals: RRIntervalAnalysisTests.clean), F.utc("2026-11-22T09:10:00Z")),
        ])
        let data = try sortedISOEncoder().encode(aggregate)
        #expect(try isoDecoder().decode(MetricsAggregate.self, from: data) == aggregate)
        let json = try jsonObject(data)
        let stress = try #require(json["latestStress"] as? [String: Any])
        #expect(stress["score"] as? Int == 38 && stress["category"] as? String == "mild" && stress["takenAt"] as? String == "2026-11-22T09:00:00Z")
        let hrv = try #require(json["hrv"] as? [String: Any])
        #expect(hrv["measure"] as? String == "rmssd")
        #expect((hrv["values"] as? [Double])?.count == 2)
        #expect(hrv["trendDirection"] as? String != nil)
        let rr = try #require(json["latestRR"] as? [String: Any])
        #expect(rr["cleanIntervals"] as? Int == 10 && rr["takenAt"] as? String == "2026-11-22T09:10:00Z")
    }

    @Test func anEmptyAggregateIsSmall() throws {
        let data = try sortedISOEncoder().encode(MetricsAggregate.empty)
        #expect(String(decoding: data, as: UTF8.self) == #"{"hourlyRMSSD":[],"hourlySDNN":[]}"#)
        #expect(try isoDecoder().decode(MetricsAggregate.self, from: Data("{}".utf8)) == .empty)
    }
}
