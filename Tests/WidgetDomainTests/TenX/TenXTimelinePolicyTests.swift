import Foundation
import Testing
@testable import WidgetDomain

@Suite("TenXTimelinePolicy")
struct TenXTimelinePolicyTests {
    typealias Policy = TenXTimelinePolicy
    let now = TenXFixture.now  // 10:30 in Berlin on 2026-11-22
    let calendar = TenXFixture.calendar
    let today = TenXFixture.today

    @Test func freshUserNeedsOnboardingAndLinksToGoals() {
        let timeline = Policy.timeline(for: .initial, kind: .home, now: now, calendar: calendar)
        #expect(timeline == Timeline(
            entries: [TimelineEntry(date: now, content: TenXWidgetSnapshot(
                state: .needsOnboarding, focuses: [], streak: 0, completedCount: 0, dayKey: today,
                generatedAt: now, deepLink: .goals))],
            policy: .after(now.addingTimeInterval(1800))))
    }

    @Test func onboardedWithoutTodayNeedsSetup() throws {
        let state = try TenXFixture.withDay(try TenXFixture.onboarded(), today.previous, completed: 2)
        let snapshot = Policy.snapshot(for: state, kind: .home, now: now, calendar: calendar)
        #expect(snapshot.state == .needsSetup)
        #expect(snapshot.deepLink == .setup)
        #expect(snapshot.focuses.isEmpty)
        #expect(snapshot.completedCount == 0)
        #expect(snapshot.streak == 1, "pending today keeps yesterday's streak")
    }

    @Test func inProgressShowsTodaysFocusesWithTheirGoals() throws {
        let base = try TenXFixture.onboarded(goals: ["Health", "Career"])
        let state = try TenXFixture.withDay(base, today, completed: 1)
        let entry = try #require(state.entry(for: today))
        let snapshot = Policy.snapshot(for: state, kind: .home, now: now, calendar: calendar)
        #expect(snapshot == TenXWidgetSnapshot(
            state: .inProgress,
            focuses: entry.focuses.map {
                TenXWidgetFocus(id: $0.id, title: $0.title, goalId: base.goals[0].id, goalTitle: "Health",
                                isCompleted: $0.isCompleted, carriedFromDayKey: nil)
            },
            streak: 1, completedCount: 1, dayKey: today, generatedAt: now, deepLink: .home))
        #expect(snapshot.focuses.map(\.isCompleted) == [true, false, false])
    }

    @Test func zeroDoneIsInProgressAndDoesNotCountToday() throws {
        let state = try TenXFixture.withDay(try TenXFixture.onboarded(), today)
        let snapshot = Policy.snapshot(for: state, kind: .home, now: now, calendar: calendar)
        #expect(snapshot.state == .inProgress)
        #expect(snapshot.streak == 0)
        #expect(snapshot.focuses.count == 3)
    }

    @Test func allDoneIsComplete() throws {
        let state = try TenXFixture.withDay(try TenXFixture.onboarded(), today, completed: 3)
        let snapshot = Policy.snapshot(for: state, kind: .home, now: now, calendar: calendar)
        #expect(snapshot.state == .complete)
        #expect(snapshot.deepLink == .home)
        #expect(snapshot.completedCount == 3)
        #expect(snapshot.streak == 1)
    }

    @Test func theLockWidgetGetsTheSameSnapshotWithoutTitles() throws {
        let state = try TenXFixture.withDay(try TenXFixture.withDay(try TenXFixture.onboarded(), today.previous, completed: 1), today, completed: 2)
        var home = Policy.snapshot(for: state, kind: .home, now: now, calendar: calendar)
        let lock = Policy.snapshot(for: state, kind: .lock, now: now, calendar: calendar)
        #expect(home.focuses.count == 3)
        #expect(lock.focuses.isEmpty)
        #expect(lock.streak == 2)
        #expect(lock.completedCount == 2)
        home.focuses = []
        #expect(home == lock)
    }

    @Test func needsOnboardingHidesAnEntryMadeBeforeTheFlag() throws {
        let goal = try TenXFixture.reduce(.initial, .createGoal(title: "Health"))
        let state = try TenXFixture.withDay(goal, today, completed: 1)
        let snapshot = Policy.snapshot(for: state, kind: .home, now: now, calendar: calendar)
        #expect(snapshot.state == .needsOnboarding)
        #expect(snapshot.focuses.isEmpty)
        #expect(snapshot.completedCount == 0)
    }

    @Test("deep link of each widget state", arguments: [
        (TenXSnapshotState.needsOnboarding, "tenx://goals"), (.needsSetup, "tenx://setup"),
        (.inProgress, "tenx://home"), (.complete, "tenx://home"),
    ])
    func deepLinks(state: TenXSnapshotState, url: String) {
        #expect(state.deepLink.rawValue == url)
    }

    @Test func reloadIsThirtyMinutesAwayDuringTheDay() {
        let timeline = Policy.timeline(for: .initial, kind: .lock, now: now, calendar: calendar)
        #expect(timeline.policy == .after(now.addingTimeInterval(30 * 60)))
        #expect(timeline.entries.map(\.date) == [now])
    }

    @Test("within 30 minutes of midnight the reload is midnight", arguments: [1.0, 60, 1740, 1800] as [Double])
    func reloadAtMidnight(secondsBefore: Double) {
        let midnight = calendar.start(of: today.next)
        let readAt = midnight.addingTimeInterval(-secondsBefore)
        let timeline = Policy.timeline(for: .initial, kind: .home, now: readAt, calendar: calendar)
        #expect(timeline.policy == .after(midnight))
        #expect(timeline.entries.map(\.content.dayKey) == [today])
    }

    @Test func atMidnightTheEntryIsForTheNewDay() throws {
        let state = try TenXFixture.withDay(try TenXFixture.onboarded(), today, completed: 3)
        let midnight = calendar.start(of: today.next)
        let before = Policy.timeline(for: state, kind: .home, now: midnight.addingTimeInterval(-1), calendar: calendar)
        let after = Policy.timeline(for: state, kind: .home, now: midnight, calendar: calendar)

        #expect(before.entries.map(\.content.state) == [.complete])
        #expect(before.entries.map(\.content.dayKey) == [today])
        #expect(after.entries.map(\.date) == [midnight])
        let rolled = try #require(after.entries.first?.content)
        #expect(rolled.state == .needsSetup)
        #expect(rolled.dayKey == today.next)
        #expect(rolled.focuses.isEmpty && rolled.completedCount == 0)
        #expect(rolled.streak == 1, "yesterday's completion carries the streak into the pending new day")
        #expect(after.policy == .after(midnight.addingTimeInterval(1800)))
    }

    @Test func aMissedDayShowsNoStreak() throws {
        let state = try TenXFixture.withDay(try TenXFixture.onboarded(), today.adding(days: -2), completed: 3)
        let snapshot = Policy.snapshot(for: state, kind: .home, now: now, calendar: calendar)
        #expect(snapshot.state == .needsSetup)
        #expect(snapshot.streak == 0)
    }

    @Test func carriedFocusesSayWhereTheyCameFrom() throws {
        let base = try TenXFixture.withDay(try TenXFixture.onboarded(), today.previous)
        let drafts = TenXCarryOver.drafts(for: today, in: base)
        let state = try TenXFixture.reduce(base, .createDayEntry(focuses: drafts))
        let snapshot = Policy.snapshot(for: state, kind: .home, now: now, calendar: calendar)
        #expect(snapshot.focuses.map(\.carriedFromDayKey) == [today.previous, today.previous, today.previous])
    }

    @Test func anArchivedGoalsTitleIsStillShown() throws {
        var state = try TenXFixture.withDay(try TenXFixture.onboarded(goals: ["A", "B"]), today)
        state = try TenXFixture.reduce(state, .archiveGoal(goalId: state.goals[0].id))
        let snapshot = Policy.snapshot(for: state, kind: .home, now: now, calendar: calendar)
        #expect(snapshot.focuses.allSatisfy { $0.goalTitle == "A" })
    }
}
