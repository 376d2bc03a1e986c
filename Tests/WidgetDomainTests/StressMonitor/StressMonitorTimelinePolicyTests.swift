import Foundation
import Testing
@testable import WidgetDomain

@Suite("StressMonitorTimelinePolicy")
struct StressMonitorTimelinePolicyTests {
    typealias Policy = StressMonitorTimelinePolicy
    let now = StressFixture.now

    @Test func noDataShowsTheSeedDefaultsAndRefreshesInFifteenMinutes() {
        let timeline = Policy.timeline(for: .initial, now: now)
        #expect(timeline == Timeline(
            entries: [TimelineEntry(date: now, content: StressMonitorEntry(
                stressLevel: 50, hrvHistory: [], hrvAverage: 60, hrvMax: 75, trend: nil, measuredAt: nil))],
            policy: .after(now.addingTimeInterval(900))))
        let content = timeline.entries[0].content
        #expect(content.category == .moderate)
        #expect(content.categoryName == "Moderate")
        #expect(content.deepLink == "stressmonitor://measurement")
    }

    @Test func aMeasuredStateShowsItsScoreSummaryAndTrend() throws {
        let values: [Double] = [45, 52, 48, 60, 55, 62, 58]
        let state = try StressFixture.record(try StressFixture.history(values), stress: 72, at: now)
        let content = try #require(Policy.timeline(for: state, now: now.addingTimeInterval(120)).entries.first?.content)
        #expect(content.stressLevel == 72)
        #expect(content.category == .high)
        #expect(content.categoryName == "High")
        #expect(content.hrvHistory == values)
        #expect(content.hrvAverage == 380.0 / 7)
        #expect(content.hrvMax == 62)
        #expect(content.hrvTrendPercent == 7)
        #expect(content.hrvTrendDirection == .up)
        #expect(content.measuredAt == now)
        #expect(content.deepLink == "stressmonitor://measurement")
    }

    @Test func aScoreWithoutHRVKeepsTheHRVDefaults() throws {
        let state = try StressFixture.record(.initial, stress: 20)
        let content = Policy.timeline(for: state, now: now).entries[0].content
        #expect(content.stressLevel == 20 && content.category == .relaxed)
        #expect(content.hrvAverage == 60 && content.hrvMax == 75 && content.hrvHistory.isEmpty)
        #expect(content.hrvTrendPercent == nil && content.hrvTrendDirection == nil)
    }

    @Test func aRefreshRequestDoesNotChangeWhatIsShown() throws {
        let state = try StressFixture.history([50, 55])
        var context = StressFixture.context(now: now.addingTimeInterval(30))
        let refreshed = try StressMonitorStateMachine.reduce(state, .updateWidget, context: &context).state
        #expect(Policy.timeline(for: refreshed, now: now) == Policy.timeline(for: state, now: now))
    }

    @Test("every entry links to the measurement flow", arguments: [0.0, 60, 86_400])
    func deepLinkEverywhere(offset: Double) throws {
        let at = now.addingTimeInterval(offset)
        let states = [StressMonitorState.initial, try StressFixture.history([40, 41])]
        let entries = states.flatMap { Policy.timeline(for: $0, now: at).entries }
            + [Policy.placeholder(at: at), Policy.preview(at: at)]
        #expect(entries.allSatisfy { $0.content.deepLink == StressMonitorDeepLink.measurement })
        #expect(entries.allSatisfy { $0.date == at })
    }

    @Test func placeholderIsFortyFiveModerate() {
        let entry = Policy.placeholder(at: now)
        #expect(entry == TimelineEntry(date: now, content: StressMonitorEntry(
            stressLevel: 45, hrvHistory: [], hrvAverage: 60, hrvMax: 75, trend: nil, measuredAt: nil)))
        #expect(entry.content.category == .moderate)
    }

    @Test func previewIsTheSeedsSnapshot() {
        let content = Policy.preview(at: now).content
        #expect(content.stressLevel == 45)
        #expect(content.category == .moderate)
        #expect(content.hrvHistory == [45, 52, 48, 60, 55, 62, 58])
        #expect(content.hrvAverage == 54)
        #expect(content.hrvMax == 62)
        #expect(content.hrvTrendPercent == 7 && content.hrvTrendDirection == .up)
        #expect(content.measuredAt == now.addingTimeInterval(-120))
    }
}
