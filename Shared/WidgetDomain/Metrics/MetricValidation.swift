import Foundation

/// metrics-ingest's checks on one decoded sample, after the protocol layer has checked its
/// shape and user id. Order: source, then `takenAt`, then the reading; the first failure is the
/// sample's one rejection reason. Bounds are Stress Monitor's where it has them, so a value the
/// app could not record is not accepted from a device either.
public enum MetricValidation {
    public static func validate(_ sample: MetricSample, now: Date) throws(MetricRejection) -> AcceptedMetric {
        try validateSource(sample.source)
        guard sample.takenAt <= now.addingTimeInterval(StressMonitorLimits.futureSkew) else {
            throw MetricRejection(
                .measurementInFuture, "takenAt is \(Int(sample.takenAt.timeIntervalSince(now))) s ahead of the server clock")
        }
        guard sample.takenAt >= now.addingTimeInterval(-StressMonitorLimits.maxMeasurementAge) else {
            throw MetricRejection(.measurementTooOld, "takenAt is \(Int(now.timeIntervalSince(sample.takenAt))) s old (at most 7 days)")
        }
        switch sample.reading {
        case .stress(let score):
            guard score.isFinite, StressMonitorLimits.stressLevelRange.contains(score) else {
                throw MetricRejection(.invalidStressScore, "stress score \(score) is not within 0–100")
            }
            return .stress(StressMeasurement(stressLevel: Int(score.rounded()), measuredAt: sample.takenAt))
        case .hrv(let milliseconds, let measure):
            try validateHRV(milliseconds, what: measure.rawValue)
            return .hrv(HRVSample(milliseconds: milliseconds, measuredAt: sample.takenAt), measure: measure)
        case .rr(let intervals):
            guard MetricsLimits.rrIntervalCount.contains(intervals.count) else {
                throw MetricRejection(.invalidRRIntervals, "\(intervals.count) RR intervals; 1–10,000 are accepted")
            }
            guard let analysis = RRIntervalAnalysis.analyze(intervals) else {
                throw MetricRejection(
                    .tooFewCleanIntervals,
                    "\(RRIntervalAnalysis.cleanMask(intervals).filter { $0 }.count) of \(intervals.count) intervals are clean; "
                        + "at least \(MetricsLimits.rrMinimumCleanIntervals), with an adjacent pair, are needed")
            }
            try validateHRV(analysis.rmssd, what: "RMSSD derived from RR intervals")
            return .rr(analysis, takenAt: sample.takenAt)
        }
    }

    /// 1–64 characters, none of them control, invisible format or line/paragraph separators,
    /// and not only white space: a name that prints and logs as itself.
    static func validateSource(_ source: String) throws(MetricRejection) {
        let printable = !source.unicodeScalars.contains { scalar in
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator, .unassigned, .surrogate, .privateUse: true
            default: false
            }
        }
        guard MetricsLimits.sourceLength.contains(source.count), printable,
            !source.allSatisfy(\.isWhitespace)
        else {
            throw MetricRejection(.invalidSource, "source must be 1–64 printable characters")
        }
    }

    private static func validateHRV(_ milliseconds: Double, what: String) throws(MetricRejection) {
        guard milliseconds.isFinite, StressMonitorLimits.hrvRange.contains(milliseconds) else {
            throw MetricRejection(.invalidHRV, "\(what) \(milliseconds) ms is not within 1–300 ms")
        }
    }
}
