import Foundation
import Testing
@testable import WidgetDomain

@Suite("TenX toggling focuses")
struct TenXToggleFocusTests {
    typealias Machine = TenXStateMachine

    @Test func completingSetsCompletedAtAndUncompletingClearsIt() throws {
        let state = try TenXFixture.withDay(try TenXFixture.onboarded(), TenXFixture.today)
        let focus = try #require(state.entry(for: TenXFixture.today)?.focuses[1])
        let doneAt = TenXFixture.now.addingTimeInterval(600)

        let done = try TenXFixture.reduce(state, .toggleFocus(focusId: focus.id), now: doneAt)
        let doneFocus = try #require(done.entry(for: TenXFixture.today)?.focuses[1])
        #expect(doneFocus.isCompleted)
        #expect(doneFocus.completedAt == doneAt)
        #expect(done.entry(for: TenXFixture.today)?.completedCount == 1)

        let undone = try TenXFixture.reduce(done, .toggleFocus(focusId: focus.id), now: doneAt.addingTimeInterval(60))
        let undoneFocus = try #require(undone.entry(for: TenXFixture.today)?.focuses[1])
        #expect(!undoneFocus.isCompleted)
        #expect(undoneFocus.completedAt == nil)
        #expect(undone == state)
    }

    @Test func onlyTheToggledFocusChanges() throws {
        let state = try TenXFixture.withDay(try TenXFixture.onboarded(), TenXFixture.today)
        let entry = try #require(state.entry(for: TenXFixture.today))
        let next = try TenXFixture.reduce(state, .toggleFocus(focusId: entry.focuses[2].id))
        let after = try #require(next.entry(for: TenXFixture.today))
        #expect(after.focuses.map(\.isCompleted) == [false, false, true])
        #expect(Array(after.focuses.prefix(2)) == Array(entry.focuses.prefix(2)))
    }

    @Test func allThreeDoneIsFullyComplete() throws {
        let state = try TenXFixture.withDay(try TenXFixture.onboarded(), TenXFixture.today, completed: 3)
        let entry = try #require(state.entry(for: TenXFixture.today))
        #expect(entry.isFullyComplete)
        #expect(entry.maintainsStreak)
    }

    @Test func yesterdaysFocusesAreNeverEdited() throws {
        let yesterday = TenXFixture.today.previous
        let state = try TenXFixture.withDay(try TenXFixture.onboarded(), yesterday)
        let focus = try #require(state.entry(for: yesterday)?.focuses[0])
        var context = TenXFixture.context()
        let violation = ruleViolation { _ = try Machine.reduce(state, .toggleFocus(focusId: focus.id), context: &context) }
        #expect(violation?.code == "focus_not_today")
        #expect(violation?.message.contains("2026-11-21") == true)
    }

    @Test func anUnknownFocusIsRefused() throws {
        let state = try TenXFixture.withDay(try TenXFixture.onboarded(), TenXFixture.today)
        var context = TenXFixture.context()
        let violation = ruleViolation { _ = try Machine.reduce(state, .toggleFocus(focusId: "nope"), context: &context) }
        #expect(violation?.code == "unknown_focus")
        let empty = ruleViolation { _ = try Machine.reduce(.initial, .toggleFocus(focusId: "nope"), context: &context) }
        #expect(empty?.code == "unknown_focus")
    }

    @Test func aFocusLinkedToANowArchivedGoalCanStillBeToggled() throws {
        var state = try TenXFixture.withDay(try TenXFixture.onboarded(goals: ["A", "B"]), TenXFixture.today)
        state = try TenXFixture.reduce(state, .archiveGoal(goalId: state.goals[0].id))
        let focus = try #require(state.entry(for: TenXFixture.today)?.focuses[0])
        let next = try TenXFixture.reduce(state, .toggleFocus(focusId: focus.id))
        #expect(next.entry(for: TenXFixture.today)?.completedCount == 1)
    }
}
