import Foundation
import Testing
@testable import WidgetDomain

@Suite("TenX coding")
struct TenXCodingTests {
    @Test func kindStringsAndFamilies() {
        #expect(TenXWidgetKind.allCases.map(\.rawValue) == ["TenXHomeWidget", "TenXLockWidget"])
        #expect(TenXWidgetKind.home.supportedFamilies == ["systemMedium", "systemLarge"])
        #expect(TenXWidgetKind.lock.supportedFamilies == ["accessoryCircular"])
        #expect(TenXDeepLink.allCases.map(\.rawValue) == ["tenx://home", "tenx://setup", "tenx://goals", "tenx://settings"])
    }

    @Test func aStateRoundTrips() throws {
        var state = try TenXFixture.withDay(try TenXFixture.onboarded(goals: ["A", "B"]), TenXFixture.today.previous, completed: 1)
        state = try TenXFixture.reduce(state, .createDayEntry(focuses: TenXCarryOver.drafts(for: TenXFixture.today, in: state)
            + [TenXFocusDraft(title: "New", goalId: state.goals[1].id)]))
        state = try TenXFixture.reduce(state, .archiveGoal(goalId: state.goals[0].id))
        state.streakTail = TenXStreakTail(throughDayKey: TenXFixture.day("2026-10-01"), length: 12)
        let data = try sortedISOEncoder().encode(state)
        #expect(try isoDecoder().decode(TenXState.self, from: data) == state)
        let object = try jsonObject(data)
        #expect(Set(object.keys) == ["goals", "dayEntries", "hasCompletedOnboarding", "streakTail"])
    }

    @Test func theInitialStateEncodesCompactly() throws {
        let json = String(decoding: try sortedISOEncoder().encode(TenXState.initial), as: UTF8.self)
        #expect(json == #"{"dayEntries":[],"goals":[],"hasCompletedOnboarding":false}"#)
    }

    @Test func aDraftDecodesFromTheWireBody() throws {
        let body = #"[{"title":"Run","goalId":"g1"},{"title":"Write","goalId":"g2","carriedFromDayKey":"2026-11-21"},{"title":"Read"}]"#
        let drafts = try JSONDecoder().decode([TenXFocusDraft].self, from: Data(body.utf8))
        #expect(drafts == [
            TenXFocusDraft(title: "Run", goalId: "g1"),
            TenXFocusDraft(title: "Write", goalId: "g2", carriedFromDayKey: "2026-11-21"),
            TenXFocusDraft(title: "Read", goalId: nil),
        ])
    }

    @Test func aNeedsSetupTimelineHasTheDocumentedShape() throws {
        let state = try TenXFixture.onboarded()
        let timeline = TenXTimelinePolicy.timeline(for: state, kind: .home, now: TenXFixture.now, calendar: TenXFixture.calendar)
        let json = String(decoding: try sortedISOEncoder().encode(timeline), as: UTF8.self)
        #expect(json == """
            {"entries":[{"completedCount":0,"date":"2026-11-22T09:30:00Z","dayKey":"2026-11-22","deepLink":"tenx://setup",\
            "focuses":[],"generatedAt":"2026-11-22T09:30:00Z","state":"needsSetup","streak":0}],\
            "policy":{"date":"2026-11-22T10:00:00Z","type":"after"}}
            """)
    }

    @Test func anInProgressEntryIsFlatAndRoundTrips() throws {
        let state = try TenXFixture.withDay(try TenXFixture.onboarded(), TenXFixture.today, completed: 1)
        let timeline = TenXTimelinePolicy.timeline(for: state, kind: .home, now: TenXFixture.now, calendar: TenXFixture.calendar)
        let data = try sortedISOEncoder().encode(timeline)
        #expect(try isoDecoder().decode(Timeline<TenXWidgetSnapshot>.self, from: data) == timeline)
        let entry = try #require((try jsonObject(data)["entries"] as? [[String: Any]])?.first)
        #expect(Set(entry.keys) == ["date", "state", "focuses", "streak", "completedCount", "dayKey", "generatedAt", "deepLink"])
        let focus = try #require((entry["focuses"] as? [[String: Any]])?.first)
        #expect(Set(focus.keys) == ["id", "title", "goalId", "goalTitle", "isCompleted"])
        #expect(focus["isCompleted"] as? Bool == true)
    }
}
