import Foundation
import Testing
@testable import WidgetDomain

@Suite("TenXStreakEngine")
struct TenXStreakEngineTests {
    typealias Engine = TenXStreakEngine
    let today = TenXFixture.day("2026-11-22")

    /// Entries for consecutive days ending yesterday, each with `completed` done.
    func run(days: Int, endingAt last: DayKey, completed: Int = 1) -> [TenXDayEntry] {
        (0..<days).map { TenXFixture.entry(last.adding(days: -$0), completed: completed) }
    }

    @Test func noEntriesNoStreak() {
        #expect(Engine.currentStreak(todayKey: today, entries: []) == 0)
        #expect(Engine.streakStartDayKey(todayKey: today, entries: []) == nil)
    }

    @Test func pendingTodayDoesNotBreak() {
        let entries = run(days: 4, endingAt: today.previous) + [TenXFixture.entry(today, completed: 0)]
        #expect(Engine.currentStreak(todayKey: today, entries: entries) == 4)
        #expect(Engine.streakStartDayKey(todayKey: today, entries: entries) == TenXFixture.day("2026-11-18"))
    }

    @Test func todayWithoutAnEntryShowsYesterdaysStreak() {
        let entries = run(days: 4, endingAt: today.previous)
        #expect(Engine.currentStreak(todayKey: today, entries: entries) == 4)
    }

    @Test func aMaintainedTodayIncrements() {
        let entries = run(days: 4, endingAt: today.previous) + [TenXFixture.entry(today, completed: 1)]
        #expect(Engine.currentStreak(todayKey: today, entries: entries) == 5)
        #expect(Engine.streakStartDayKey(todayKey: today, entries: entries) == TenXFixture.day("2026-11-18"))
    }

    @Test("one completed focus is enough to keep a day", arguments: [1, 2, 3])
    func anyCompletionMaintains(completed: Int) {
        let entries = [TenXFixture.entry(today.previous, completed: completed)]
        #expect(Engine.currentStreak(todayKey: today, entries: entries) == 1)
    }

    @Test func aMissingDayBreaks() {
        // 11-21, 11-20 kept; 11-19 missing; 11-18, 11-17 kept.
        let entries = run(days: 2, endingAt: today.previous) + run(days: 2, endingAt: TenXFixture.day("2026-11-18"))
        #expect(Engine.currentStreak(todayKey: today, entries: entries) == 2)
        #expect(Engine.streakStartDayKey(todayKey: today, entries: entries) == TenXFixture.day("2026-11-20"))
    }

    @Test func aDayWithNothingDoneBreaks() {
        let entries = run(days: 2, endingAt: today.previous)
            + [TenXFixture.entry(TenXFixture.day("2026-11-19"), completed: 0)]
            + run(days: 3, endingAt: TenXFixture.day("2026-11-18"))
        #expect(Engine.currentStreak(todayKey: today, entries: entries) == 2)
    }

    @Test func missingYesterdayBreaksEvenWithOlderDays() {
        let entries = run(days: 5, endingAt: TenXFixture.day("2026-11-20"))
        #expect(Engine.currentStreak(todayKey: today, entries: entries) == 0)
        #expect(Engine.currentStreak(todayKey: today, entries: entries + [TenXFixture.entry(today, completed: 1)]) == 1)
    }

    @Test func unfinishedYesterdayAndPendingTodayIsZero() {
        let entries = [TenXFixture.entry(today.previous, completed: 0), TenXFixture.entry(today, completed: 0)]
        #expect(Engine.currentStreak(todayKey: today, entries: entries) == 0)
        #expect(Engine.streakStartDayKey(todayKey: today, entries: entries) == nil)
    }

    @Test func futureEntriesAreIgnored() {
        let entries = run(days: 2, endingAt: today.previous) + [TenXFixture.entry(today.next, completed: 3)]
        #expect(Engine.currentStreak(todayKey: today, entries: entries) == 2)
    }

    @Test func streaksRunAcrossMonthAndYearEnds() {
        let entries = run(days: 40, endingAt: TenXFixture.day("2027-01-10"))
        #expect(Engine.currentStreak(todayKey: TenXFixture.day("2027-01-11"), entries: entries) == 40)
        #expect(Engine.streakStartDayKey(todayKey: TenXFixture.day("2027-01-11"), entries: entries) == TenXFixture.day("2026-12-02"))
    }

    @Test func theTailContinuesARunThatReachesItsDay() {
        let tail = TenXStreakTail(throughDayKey: TenXFixture.day("2026-11-19"), length: 100)
        let reaching = run(days: 2, endingAt: today.previous)  // 11-21, 11-20
        #expect(Engine.currentStreak(todayKey: today, entries: reaching, tail: tail) == 102)
        #expect(Engine.streakStartDayKey(todayKey: today, entries: reaching, tail: tail) == TenXFixture.day("2026-11-19").adding(days: -99))

        let gap = [TenXFixture.entry(today.previous, completed: 1)]  // 11-20 missing
        #expect(Engine.currentStreak(todayKey: today, entries: gap, tail: tail) == 1)

        let broken = [TenXFixture.entry(today.previous, completed: 1), TenXFixture.entry(TenXFixture.day("2026-11-20"), completed: 0)]
        #expect(Engine.currentStreak(todayKey: today, entries: broken, tail: tail) == 1)
    }

    @Test func theStateAsksTheEngineWithItsTail() throws {
        let state = TenXState(dayEntries: run(days: 3, endingAt: today.previous),
                              streakTail: TenXStreakTail(throughDayKey: TenXFixture.day("2026-11-18"), length: 7))
        #expect(state.currentStreak(today: today) == 10)
    }
}
