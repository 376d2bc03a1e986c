import Foundation
@testable import WidgetDomain

/// Fixed inputs for the metrics tests.
enum MetricsFixture {
    static let now = Fixture.now  // 2026-11-22T09:30:00Z

    static func utc(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }

    static func calendar(_ identifier: String) -> LocalCalendar {
        LocalCalendar(timeZone: TimeZone(identifier: identifier)!)
    }

    static func sample(_ reading: MetricSample.Reading, at takenAt: Date = now, user: String = "alice", source: String = "watch")
        -> MetricSample
    {
        MetricSample(user: user, takenAt: takenAt, source: source, reading: reading)
    }

    /// `readings` applied in order through validation, in `calendar`.
    static func aggregate(
        _ readings: [(MetricSample.Reading, Date)], calendar: LocalCalendar = calendar("UTC"), now: Date = now,
        startingFrom start: MetricsAggregate = .empty
    ) throws -> MetricsAggregate {
        try readings.reduce(start) { aggregate, reading in
            aggregate.applying(try MetricValidation.validate(sample(reading.0, at: reading.1), now: now), calendar: calendar)
        }
    }

    static func rmssd(_ milliseconds: Double) -> MetricSample.Reading { .hrv(milliseconds: milliseconds, measure: .rmssd) }
    static func sdnn(_ milliseconds: Double) -> MetricSample.Reading { .hrv(milliseconds: milliseconds, measure: .sdnn) }
}

/// Runs `body` and returns the reason of the metric rejection it threw; nil if it threw none.
func metricRejection(_ body: () throws -> Void) -> MetricRejection.Reason? {
    do {
        try body()
        return nil
    } catch {
        return (error as? MetricRejection)?.reason
    }
}
