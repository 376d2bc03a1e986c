import Foundation
import Testing
@testable import WidgetDomain

@Suite("TenX retention")
struct TenXRetentionTests {
    let start = TenXFixture.day("2026-01-01")

    @Test func entriesOlderThanThirtyDaysFoldIntoTheTail() throws {
        var state = try TenXFixture.onboarded()
        for offset in 0..<40 { state = try TenXFixture.withDay(state, start.adding(days: offset), completed: 1) }
        let today = start.adding(days: 39)
        #expect(state.dayEntries.count == 31)
        #expect(state.dayEntries.first?.dayKey == TenXRetention.oldestRetainedDay(today: today))
        #expect(state.dayEntries.first?.dayKey == today.adding(days: -30))
        #expect(state.streakTail == TenXStreakTail(throughDayKey: today.adding(days: -31), length: 9))
        #expect(state.currentStreak(today: today) == 40)
        #expect(TenXStreakEngine.streakStartDayKey(todayKey: today, entries: state.dayEntries, tail: state.streakTail) == start)
    }

    @Test func nothingIsFoldedWhileEverythingIsRecent() throws {
        var state = try TenXFixture.onboarded()
        for offset in 0..<31 { state = try TenXFixture.withDay(state, start.adding(days: offset)) }
        #expect(state.dayEntries.count == 31)
        #expect(state.streakTail == nil)
    }

    @Test func aFoldedBreakGivesAZeroTail() throws {
        var state = try TenXFixture.onboarded()
        state = try TenXFixture.withDay(state, start, completed: 0)
        state = try TenXFixture.withDay(state, start.adding(days: 31), completed: 1)
        #expect(state.streakTail == TenXStreakTail(throughDayKey: start, length: 0))
        #expect(state.dayEntries.map(\.dayKey) == [start.adding(days: 31)])
    }

    /// Two years of random days: the folded state always reports the streak the full history
    /// would, including streaks far longer than the retention window.
    @Test func foldingNeverChangesTheStreak() throws {
        var random = SeededRandom(seed: 2026)
        var state = try TenXFixture.onboarded()
        var everything: [DayKey: TenXDayEntry] = [:]
        var longest = 0
        for offset in 0..<730 {
            let day = start.adding(days: offset)
            let skipped = random.next() % 100 < 1
            if !skipped {
                let completed = random.next() % 100 < 1 ? 0 : Int(random.next() % 3) + 1
                state = try TenXFixture.withDay(state, day, completed: completed)
                let entry = try #require(state.entry(for: day))
                everything[day] = entry
            }
            #expect(state.dayEntries.count <= TenXLimits.retainedDays + 1)
            for asOf in [day, day.next] {
                let expected = TenXStreakEngine.currentStreak(todayKey: asOf, entries: Array(everything.values))
                #expect(state.currentStreak(today: asOf) == expected, "streak as of \(asOf)")
                #expect(
                    TenXStreakEngine.streakStartDayKey(todayKey: asOf, entries: state.dayEntries, tail: state.streakTail)
                        == TenXStreakEngine.streakStartDayKey(todayKey: asOf, entries: Array(everything.values)))
                longest = max(longest, expected)
            }
        }
        #expect(longest > 2 * TenXLimits.retainedDays, "the run must outlast the window to test the tail")
    }

    @Test func aDayOlderThanTheKeptHistoryIsClosed() throws {
        var state = try TenXFixture.onboarded()
        state = try TenXFixture.withDay(state, start)
        state = try TenXFixture.withDay(state, start.adding(days: 40))
        let tail = try #require(state.streakTail)
        #expect(tail.throughDayKey == start.adding(days: 9))
        var context = TenXFixture.context(now: TenXFixture.noon(of: tail.throughDayKey))
        let violation = ruleViolation {
            _ = try TenXStateMachine.reduce(state, .createDayEntry(focuses: TenXFixture.drafts(state.goals[0].id)), context: &context)
        }
        #expect(violation?.code == "day_closed")
        // A day inside the window but never set can still be set (e.g. "today" moved back by a zone change).
        let inside = try TenXFixture.withDay(state, start.adding(days: 39))
        #expect(inside.entry(for: start.adding(days: 39)) != nil)
        #expect(inside.streakTail == state.streakTail, "a today that went back never moves the tail")
    }

    @Test func retentionLeavesAStateWithoutOldEntriesAlone() throws {
        let state = try TenXFixture.withDay(try TenXFixture.onboarded(), start)
        #expect(TenXRetention.apply(to: state, today: start.adding(days: 5)) == state)
    }
}
