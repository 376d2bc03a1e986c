import Benchmark
import Foundation
import WidgetDomain

/// metrics-ingest's check of one RR sample (``MetricValidation/validate(_:now:)``): the source
/// and date checks, artefact removal and RMSSD/SDNN (``RRIntervalAnalysis``), for a standard
/// five-minute recording and for the longest one accepted.
enum MetricsBenchmarks {
    static func register() {
        for (name, count) in [("5 min (300 intervals)", 300), ("max (10000 intervals)", MetricsLimits.rrIntervalCount.upperBound)] {
            let sample = MetricSample(
                user: Fixtures.user, takenAt: Fixtures.now.addingTimeInterval(-600), source: "chest-strap",
                reading: .rr(intervals: Fixtures.rrIntervals(count: count)))
            Benchmark("RR analysis/\(name)", configuration: .widgetBus) { _ in
                blackHole(try MetricValidation.validate(sample, now: Fixtures.now))
            }
        }
    }
}
