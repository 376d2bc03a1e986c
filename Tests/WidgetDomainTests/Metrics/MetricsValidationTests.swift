import Foundation
import Testing
@testable import WidgetDomain

@Suite("Metrics validation")
struct MetricsValidationTests {
    typealias F = MetricsFixture

    @Test func aStressScoreIsRoundedOnce() throws {
        let accepted = try MetricValidation.validate(F.sample(.stress(score: 44.5)), now: F.now)
        #expect(accepted == .stress(StressMeasurement(stressLevel: 45, measuredAt: F.now)))
    }

    @Test("stress scores outside 0–100 are refused", arguments: [-0.1, 100.4, .infinity, .nan])
    func stressRange(score: Double) {
        #expect(metricRejection { _ = try MetricValidation.validate(F.sample(.stress(score: score)), now: F.now) } == .invalidStressScore)
    }

    @Test("HRV outside 1–300 ms is refused", arguments: [0, 0.99, 300.01, -5, .nan])
    func hrvRange(milliseconds: Double) {
        #expect(metricRejection { _ = try MetricValidation.validate(F.sample(F.sdnn(milliseconds)), now: F.now) } == .invalidHRV)
    }

    @Test func hrvBoundsAreInclusive() throws {
        _ = try MetricValidation.validate(F.sample(F.rmssd(1)), now: F.now)
        _ = try MetricValidation.validate(F.sample(F.rmssd(300)), now: F.now)
    }

    @Test func takenAtWindowIsFiveMinutesAheadToSevenDaysBack() throws {
        _ = try MetricValidation.validate(F.sample(F.rmssd(50), at: F.now.addingTimeInterval(300)), now: F.now)
        _ = try MetricValidation.validate(F.sample(F.rmssd(50), at: F.now.addingTimeInterval(-7 * 86_400)), now: F.now)
        #expect(metricRejection {
            _ = try MetricValidation.validate(F.sample(F.rmssd(50), at: F.now.addingTimeInterval(301)), now: F.now)
        } == .measurementInFuture)
        #expect(metricRejection {
            _ = try MetricValidation.validate(F.sample(F.rmssd(50), at: F.now.addingTimeInterval(-7 * 86_400 - 1)), now: F.now)
        } == .measurementTooOld)
    }

    @Test("sources must be 1–64 printable characters", arguments: [
        "", " ", String(repeating: "w", count: 65), "watch\n", "tab\there", "zero\u{200B}width", "\u{7}",
    ])
    func badSources(source: String) {
        #expect(metricRejection { _ = try MetricValidation.validate(F.sample(.stress(score: 3), source: source), now: F.now) } == .invalidSource)
    }

    @Test("printable sources are accepted", arguments: ["watch", "Garmin Fēnix 7", String(repeating: "w", count: 64), "🫀 strap"])
    func goodSources(source: String) throws {
        _ = try MetricValidation.validate(F.sample(.stress(score: 3), source: source), now: F.now)
    }

    @Test func rrRecordingsBecomeTheirAnalysis() throws {
        let accepted = try MetricValidation.validate(F.sample(.rr(intervals: RRIntervalAnalysisTests.clean)), now: F.now)
        #expect(accepted == .rr(RRIntervalAnalysis.analyze(RRIntervalAnalysisTests.clean)!, takenAt: F.now))
    }

    @Test func rrRefusals() {
        #expect(metricRejection { _ = try MetricValidation.validate(F.sample(.rr(intervals: [])), now: F.now) } == .invalidRRIntervals)
        #expect(metricRejection {
            _ = try MetricValidation.validate(F.sample(.rr(intervals: Array(repeating: 800, count: 10_001))), now: F.now)
        } == .invalidRRIntervals)
        #expect(metricRejection {
            _ = try MetricValidation.validate(F.sample(.rr(intervals: [800, 810, 3000, 790])), now: F.now)
        } == .tooFewCleanIntervals)
        // Perfectly regular beats: RMSSD 0 ms is below the 1 ms a real heart shows.
        #expect(metricRejection {
            _ = try MetricValidation.validate(F.sample(.rr(intervals: Array(repeating: 800, count: 20))), now: F.now)
        } == .invalidHRV)
    }

    @Test func theSourceIsCheckedBeforeTheTimeAndTheTimeBeforeTheValue() {
        let everythingWrong = F.sample(.stress(score: 500), at: F.now.addingTimeInterval(3_600), source: "")
        #expect(metricRejection { _ = try MetricValidation.validate(everythingWrong, now: F.now) } == .invalidSource)
        let lateAndWrong = F.sample(.stress(score: 500), at: F.now.addingTimeInterval(3_600))
        #expect(metricRejection { _ = try MetricValidation.validate(lateAndWrong, now: F.now) } == .measurementInFuture)
    }

    @Test func reasonCodesAreStable() {
        #expect(MetricRejection.Reason.allCases.map(\.rawValue) == [
            "malformed_sample", "unknown_kind", "unknown_measure", "invalid_user", "invalid_source",
            "measurement_in_future", "measurement_too_old", "invalid_stress_score", "invalid_hrv",
            "invalid_rr_intervals", "too_few_clean_intervals",
        ])
    }
}
