import Foundation
import Testing
@testable import WidgetDomain

@Suite("StressMonitorState merged with metrics")
struct StressMonitorStateMetricsMergeTests {
    static let now = StressFixture.now

    @Test func withoutMetricsTheStateIsShownAsItIs() throws {
        let state = try StressFixture.history([40, 45])
        #expect(state.merged(with: nil) == state)
        #expect(state.merged(with: .empty) == state)
    }

    @Test func theMoreRecentStressReadingWins() throws {
        let app = try StressFixture.record(.initial, stress: 30, at: Self.now.addingTimeInterval(-600))
        let newer = MetricsAggregate(latestStress: StressMeasurement(stressLevel: 72, measuredAt: Self.now.addingTimeInterval(-60)))
        let older = MetricsAggregate(latestStress: StressMeasurement(stressLevel: 72, measuredAt: Self.now.addingTimeInterval(-900)))
        let same = MetricsAggregate(latestStress: StressMeasurement(stressLevel: 72, measuredAt: Self.now.addingTimeInterval(-600)))
        #expect(app.merged(with: newer).latest?.stressLevel == 72)
        #expect(app.merged(with: older).latest?.stressLevel == 30)
        #expect(app.merged(with: same).latest?.stressLevel == 30, "at the same instant the app's reading stays")
        #expect(StressMonitorState.initial.merged(with: older).latest?.stressLevel == 72)
    }

    @Test func hourlyMetricsReplaceTheAppHistory() throws {
        let app = try StressFixture.history([40, 45, 50])
        let hours = [
            HRVHourlyValue(hourStart: Self.now.addingTimeInterval(-7_200), milliseconds: 52.5, samples: 2),
            HRVHourlyValue(hourStart: Self.now.addingTimeInterval(-3_600), milliseconds: 60),
        ]
        let merged = app.merged(with: MetricsAggregate(hourlyRMSSD: hours))
        #expect(merged.hrvValues == [52.5, 60])
        #expect(merged.hrvHistory.map(\.measuredAt) == hours.map(\.hourStart))
        #expect(merged.latest == app.latest)

        let entry = StressMonitorEntry(state: merged)
        #expect(entry.hrvAverage == 56.25 && entry.hrvMax == 60)
        #expect(entry.hrvTrendPercent == 7 && entry.hrvTrendDirection == .up)
    }

    @Test func metricsWithoutHRVKeepTheAppHistory() throws {
        let app = try StressFixture.history([40, 45, 50])
        let newer = StressMeasurement(stressLevel: 10, measuredAt: Self.now.addingTimeInterval(1))
        let merged = app.merged(with: MetricsAggregate(latestStress: newer))
        #expect(merged.hrvHistory == app.hrvHistory)
        #expect(merged.latest?.stressLevel == 10)
    }

    @Test func theRefreshRequestStaysTheApps() {
        let app = StressMonitorState(refreshRequestedAt: Self.now)
        #expect(app.merged(with: MetricsAggregate(latestStress: StressMeasurement(stressLevel: 1, measuredAt: Self.now))).refreshRequestedAt == Self.now)
    }
}
