import Foundation
import Testing
@testable import WidgetDomain

@Suite("TenX goals")
struct TenXGoalRulesTests {
    typealias Machine = TenXStateMachine

    @Test func createGoalTrimsTheTitleAndDrawsItsIdFromTheContext() throws {
        var context = TenXFixture.context(seed: 3)
        let transition = try Machine.reduce(.initial, .createGoal(title: "  \n Run a marathon\t "), context: &context)
        var expectedIds = TenXFixture.context(seed: 3)
        let goal = try #require(transition.state.goals.first)
        #expect(transition.state.goals.count == 1)
        #expect(goal == TenXGoal(id: expectedIds.makeID(), title: "Run a marathon", createdAt: TenXFixture.now))
        #expect(transition.records.isEmpty)
        #expect(transition.openURL == nil)
    }

    @Test("blank titles are refused", arguments: ["", " ", "\n\t  ", "\u{3000}"])
    func blankTitle(title: String) {
        var context = TenXFixture.context()
        let violation = ruleViolation { _ = try Machine.reduce(.initial, .createGoal(title: title), context: &context) }
        #expect(violation?.code == "empty_goal_title")
        var fresh = TenXFixture.context()
        #expect(context.makeID() == fresh.makeID(), "no id may be drawn for a refused goal")
    }

    @Test("control characters inside a title are refused", arguments: ["Run\na marathon", "Tab\there", "Bell\u{7}"])
    func controlCharacters(title: String) {
        var context = TenXFixture.context()
        let violation = ruleViolation { _ = try Machine.reduce(.initial, .createGoal(title: title), context: &context) }
        #expect(violation?.code == "invalid_goal_title")
    }

    @Test func unicodeTitlesAreFine() throws {
        let state = try TenXFixture.reduce(.initial, .createGoal(title: "Laufen 🏃‍♀️ – 10 km"))
        #expect(state.goals.first?.title == "Laufen 🏃‍♀️ – 10 km")
    }

    @Test func longClientIdsAreNotEchoedInFull() throws {
        let state = try TenXFixture.onboarded()
        var context = TenXFixture.context()
        let huge = String(repeating: "x", count: 10_000)
        let violation = ruleViolation { _ = try Machine.reduce(state, .archiveGoal(goalId: huge), context: &context) }
        #expect(violation?.code == "unknown_goal")
        #expect((violation?.message.count ?? .max) < 80)
    }

    @Test func titleLengthIsCountedInCharactersAfterTrimming() throws {
        var context = TenXFixture.context()
        let longest = String(repeating: "é", count: 80)
        let accepted = try Machine.reduce(.initial, .createGoal(title: "  \(longest)  "), context: &context)
        #expect(accepted.state.goals.first?.title == longest)

        let violation = ruleViolation {
            _ = try Machine.reduce(.initial, .createGoal(title: longest + "x"), context: &context)
        }
        #expect(violation?.code == "goal_title_too_long")
        #expect(violation?.message.contains("81") == true)
        #expect(TenXLimits.maxGoalTitleLength == 80)
    }

    @Test func aFourthActiveGoalIsRefused() throws {
        let state = try TenXFixture.onboarded(goals: ["A", "B", "C"])
        var context = TenXFixture.context()
        let violation = ruleViolation { _ = try Machine.reduce(state, .createGoal(title: "D"), context: &context) }
        #expect(violation?.code == "too_many_active_goals")
        #expect(violation?.message == "You already have 3 active goals.")
    }

    @Test func archivingMakesRoomForANewGoal() throws {
        var state = try TenXFixture.onboarded(goals: ["A", "B", "C"])
        state = try TenXFixture.reduce(state, .archiveGoal(goalId: state.goals[1].id))
        state = try TenXFixture.reduce(state, .createGoal(title: "D"))
        #expect(state.activeGoals.map(\.title) == ["A", "C", "D"])
        #expect(state.goals.count == 4)
    }

    @Test func archiveStampsArchivedAtAndKeepsTheGoal() throws {
        let state = try TenXFixture.onboarded(goals: ["A", "B"])
        let archivedAt = TenXFixture.now.addingTimeInterval(99)
        let next = try TenXFixture.reduce(state, .archiveGoal(goalId: state.goals[0].id), now: archivedAt)
        #expect(next.goals[0].archivedAt == archivedAt)
        #expect(next.goals[0].isArchived)
        #expect(next.activeGoals.map(\.title) == ["B"])
    }

    @Test func archivingTheLastActiveGoalIsRefused() throws {
        var state = try TenXFixture.onboarded(goals: ["A", "B"])
        state = try TenXFixture.reduce(state, .archiveGoal(goalId: state.goals[0].id))
        var context = TenXFixture.context()
        let violation = ruleViolation {
            _ = try Machine.reduce(state, .archiveGoal(goalId: state.goals[1].id), context: &context)
        }
        #expect(violation?.code == "last_active_goal")
        #expect(violation?.message == "You need at least 1 active goal.")
    }

    @Test func archivingAnArchivedGoalChangesNothing() throws {
        var state = try TenXFixture.onboarded(goals: ["A", "B"])
        state = try TenXFixture.reduce(state, .archiveGoal(goalId: state.goals[0].id))
        // Even with one active goal left, re-archiving the archived one is not "archiving the last".
        let again = try TenXFixture.reduce(state, .archiveGoal(goalId: state.goals[0].id), now: TenXFixture.now.addingTimeInterval(500))
        #expect(again == state)
    }

    @Test func unarchiveRestoresTheGoalWhileFewerThanThreeAreActive() throws {
        var state = try TenXFixture.onboarded(goals: ["A", "B"])
        state = try TenXFixture.reduce(state, .archiveGoal(goalId: state.goals[0].id))
        state = try TenXFixture.reduce(state, .unarchiveGoal(goalId: state.goals[0].id))
        #expect(state.goals[0].archivedAt == nil)
        #expect(state.activeGoals.map(\.title) == ["A", "B"])
    }

    @Test func unarchiveIsRefusedWithThreeActiveGoals() throws {
        var state = try TenXFixture.onboarded(goals: ["A", "B", "C"])
        state = try TenXFixture.reduce(state, .archiveGoal(goalId: state.goals[0].id))
        state = try TenXFixture.reduce(state, .createGoal(title: "D"))
        var context = TenXFixture.context()
        let violation = ruleViolation {
            _ = try Machine.reduce(state, .unarchiveGoal(goalId: state.goals[0].id), context: &context)
        }
        #expect(violation?.code == "too_many_active_goals")
    }

    @Test func unarchivingAnActiveGoalChangesNothing() throws {
        let state = try TenXFixture.onboarded(goals: ["A", "B", "C"])
        #expect(try TenXFixture.reduce(state, .unarchiveGoal(goalId: state.goals[2].id)) == state)
    }

    @Test("unknown goal ids are refused", arguments: ["", "nope", "ABC"])
    func unknownGoal(goalId: String) throws {
        let state = try TenXFixture.onboarded()
        for intent in [TenXIntent.archiveGoal(goalId: goalId), .unarchiveGoal(goalId: goalId)] {
            var context = TenXFixture.context()
            let violation = ruleViolation { _ = try Machine.reduce(state, intent, context: &context) }
            #expect(violation?.code == "unknown_goal")
        }
    }

    @Test func goalStorageEvictsTheLongestArchivedUnlinkedGoal() throws {
        // 100 goals: 3 active, 97 archived at increasing times; goal #0 is linked to a kept focus.
        var goals = (0..<97).map { index in
            TenXGoal(id: "old-\(index)", title: "Old \(index)", createdAt: TenXFixture.now.addingTimeInterval(-1e6),
                     archivedAt: TenXFixture.now.addingTimeInterval(Double(index) - 1e5))
        }
        goals += (0..<3).map { TenXGoal(id: "active-\($0)", title: "Active \($0)", createdAt: TenXFixture.now) }
        var linkedEntry = TenXFixture.entry(TenXFixture.today.previous, completed: 0)
        linkedEntry.focuses = linkedEntry.focuses.map { focus in
            TenXFocus(id: focus.id, title: focus.title, goalId: "old-0", sortOrder: focus.sortOrder, createdAt: focus.createdAt)
        }
        var state = TenXState(goals: goals, dayEntries: [linkedEntry], hasCompletedOnboarding: true)
        state = try TenXFixture.reduce(state, .archiveGoal(goalId: "active-0"))
        state = try TenXFixture.reduce(state, .createGoal(title: "Fresh"))

        #expect(state.goals.count == TenXLimits.maxStoredGoals)
        #expect(state.goal(id: "old-0") != nil, "a goal a kept focus links is never evicted")
        #expect(state.goal(id: "old-1") == nil, "the longest-archived unlinked goal goes")
        #expect(state.goal(id: "old-2") != nil)
        #expect(state.activeGoals.map(\.title) == ["Active 1", "Active 2", "Fresh"])
    }

    @Test func goalStorageFullWhenEveryArchivedGoalIsLinked() throws {
        let goals = (0..<97).map {
            TenXGoal(id: "old-\($0)", title: "Old", createdAt: TenXFixture.now, archivedAt: TenXFixture.now)
        } + (0..<2).map { TenXGoal(id: "active-\($0)", title: "Active", createdAt: TenXFixture.now) }
        let entries = (0..<33).map { day in
            TenXDayEntry(
                dayKey: TenXFixture.today.adding(days: -day), createdAt: TenXFixture.now,
                focuses: (0..<3).map { slot in
                    let linked = min(day * 3 + slot, 96)
                    return TenXFocus(id: "f\(day)-\(slot)", title: "F", goalId: "old-\(linked)", sortOrder: slot, createdAt: TenXFixture.now)
                })
        }
        let state = TenXState(goals: goals + [TenXGoal(id: "extra", title: "E", createdAt: TenXFixture.now, archivedAt: nil)],
                              dayEntries: entries, hasCompletedOnboarding: true)
        #expect(state.goals.count == 100)
        var context = TenXFixture.context()
        // Make room among active goals first, so only storage can refuse.
        let archivedExtra = try Machine.reduce(state, .archiveGoal(goalId: "extra"), context: &context).state
        var linkedExtra = archivedExtra
        linkedExtra.dayEntries[0].focuses[0] = TenXFocus(
            id: "fx", title: "F", goalId: "extra", sortOrder: 0, createdAt: TenXFixture.now)
        let violation = ruleViolation { _ = try Machine.reduce(linkedExtra, .createGoal(title: "New"), context: &context) }
        #expect(violation?.code == "goal_storage_full")
    }
}
