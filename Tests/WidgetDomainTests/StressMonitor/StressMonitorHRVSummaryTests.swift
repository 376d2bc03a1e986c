import Testing
@testable import WidgetDomain

@Suite("HRVSummary")
struct StressMonitorHRVSummaryTests {
    @Test func averageIsSumOverCountAndMaxIsTheLargest() {
        let summary = HRVSummary(values: [45, 52, 48, 60, 55, 62, 58])
        #expect(summary.average == 380.0 / 7)
        #expect(summary.maximum == 62)
    }

    @Test func theSeedPreviewAverage() {
        #expect(HRVSummary(values: [42, 45, 48, 44, 50, 52, 48, 45]).average == 46.75)
        #expect(HRVSummary(values: [42, 45, 48, 44, 50, 52, 48, 45]).maximum == 52)
    }

    @Test func noHistoryFallsBackToTheSeedDefaults() {
        let summary = HRVSummary(values: [])
        #expect(summary.average == 60)
        #expect(summary.maximum == 75)
        #expect(summary.trend == nil)
        #expect(HRVSummary.average(of: []) == nil)
        #expect(HRVSummary.maximum(of: []) == nil)
    }

    @Test func oneValueIsItsOwnAverageAndFlat() {
        let summary = HRVSummary(values: [33.5])
        #expect(summary.average == 33.5)
        #expect(summary.maximum == 33.5)
        #expect(summary.trend == HRVTrend(latest: 33.5, average: 33.5))
        #expect(summary.trend?.direction == .flat)
    }

    @Test func theTrendComparesTheNewestValue() {
        // Average 55; newest 50 is 9.09 % below.
        let summary = HRVSummary(values: [60, 55, 50])
        #expect(summary.trend?.percent == -9)
        #expect(summary.trend?.direction == .down)
    }
}
