import Testing
@testable import WidgetDomain

@Suite("HRVTrend")
struct StressMonitorHRVTrendTests {
    @Test("rounded percent against the average, halves away from zero", arguments: [
        (58.0, 380.0 / 7, 7, HRVTrendDirection.up),
        (49, 50, -2, .down),
        (50, 50, 0, .flat),
        (50.2, 50, 0, .flat),
        (50.25, 50, 1, .up),  // +0.5 % rounds away from zero
        (49.75, 50, -1, .down),  // -0.5 %
        (49.8, 50, 0, .flat),
        (150, 50, 200, .up),
        (1, 300, -100, .down),
    ])
    func percent(latest: Double, average: Double, percent: Int, direction: HRVTrendDirection) {
        let trend = HRVTrend(latest: latest, average: average)
        #expect(trend.percent == percent)
        #expect(trend.direction == direction)
    }

    @Test func labelsReadLikeTheSeed() {
        #expect(HRVTrend(latest: 49, average: 50).label == "-2% vs Avg")
        #expect(HRVTrend(latest: 58, average: 54).label == "+7% vs Avg")
        #expect(HRVTrend(latest: 54, average: 54).label == "0% vs Avg")
    }

    @Test func aZeroAverageIsFlat() {
        #expect(HRVTrend(latest: 10, average: 0) == HRVTrend(latest: 1, average: 1))
    }
}
