import Foundation
import Testing
@testable import WidgetDomain

@Suite("TenX carry-over")
struct TenXCarryOverTests {
    let today = TenXFixture.today
    var yesterday: DayKey { today.previous }

    @Test func onlyYesterdaysUnfinishedFocusesAreOfferedInOrder() throws {
        let base = try TenXFixture.onboarded()
        var state = try TenXFixture.withDay(base, yesterday)
        let focuses = try #require(state.entry(for: yesterday)?.focuses)
        state = try TenXFixture.reduce(state, .toggleFocus(focusId: focuses[1].id), now: TenXFixture.noon(of: yesterday))

        let drafts = TenXCarryOver.drafts(for: today, in: state)
        #expect(drafts == [
            TenXFocusDraft(title: "Run 5k", goalId: base.goals[0].id, carriedFromDayKey: "2026-11-21"),
            TenXFocusDraft(title: "Read", goalId: base.goals[0].id, carriedFromDayKey: "2026-11-21"),
        ])
    }

    @Test func carryOverNeverEditsYesterday() throws {
        let state = try TenXFixture.withDay(try TenXFixture.onboarded(), yesterday, completed: 1)
        let drafts = TenXCarryOver.drafts(for: today, in: state)
        let goalId = state.goals[0].id
        let filled = drafts + [TenXFocusDraft(title: "New one", goalId: goalId)]
        let next = try TenXFixture.reduce(state, .createDayEntry(focuses: filled))
        #expect(next.entry(for: yesterday) == state.entry(for: yesterday))
        let todayEntry = try #require(next.entry(for: today))
        #expect(todayEntry.focuses.map(\.title) == ["Write", "Read", "New one"])
        #expect(todayEntry.focuses.map(\.carriedFromDayKey) == [yesterday, yesterday, nil])
        #expect(Set(todayEntry.focuses.map(\.id)).isDisjoint(with: state.entry(for: yesterday)!.focuses.map(\.id)))
    }

    @Test func draftsAreCappedAtThree() {
        var entry = TenXFixture.entry(yesterday, completed: 0)
        // An entry with more than three unfinished focuses should not exist; carry-over still caps.
        entry.focuses.append(TenXFocus(id: "extra", title: "Extra", goalId: "g", sortOrder: 3, createdAt: TenXFixture.now))
        let state = TenXState(goals: [TenXGoal(id: "g", title: "G", createdAt: TenXFixture.now)], dayEntries: [entry])
        let drafts = TenXCarryOver.drafts(for: today, in: state)
        #expect(drafts.count == 3)
        #expect(drafts.map(\.title) == ["Focus 0", "Focus 1", "Focus 2"])
    }

    @Test func nothingToCarry() throws {
        let base = try TenXFixture.onboarded()
        #expect(TenXCarryOver.drafts(for: today, in: base).isEmpty, "no yesterday")
        let allDone = try TenXFixture.withDay(base, yesterday, completed: 3)
        #expect(TenXCarryOver.drafts(for: today, in: allDone).isEmpty, "yesterday fully done")
        let olderOnly = try TenXFixture.withDay(base, today.adding(days: -2))
        #expect(TenXCarryOver.drafts(for: today, in: olderOnly).isEmpty, "only the day before counts")
        let todaySet = try TenXFixture.withDay(try TenXFixture.withDay(base, yesterday), today)
        #expect(TenXCarryOver.drafts(for: today, in: todaySet).isEmpty, "today already set")
    }

    @Test func aDraftDropsItsGoalOnceThatGoalIsArchived() throws {
        var state = try TenXFixture.withDay(try TenXFixture.onboarded(goals: ["A", "B"]), yesterday)
        state = try TenXFixture.reduce(state, .archiveGoal(goalId: state.goals[0].id))
        let drafts = TenXCarryOver.drafts(for: today, in: state)
        #expect(drafts.count == 3)
        #expect(drafts.allSatisfy { $0.goalId == nil && $0.carriedFromDayKey == "2026-11-21" })
        // Submitted unchanged, the setup is refused until a goal is picked.
        var context = TenXFixture.context()
        let violation = ruleViolation { _ = try TenXStateMachine.reduce(state, .createDayEntry(focuses: drafts), context: &context) }
        #expect(violation?.code == "missing_goal_link")
    }
}
