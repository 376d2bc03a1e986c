import Foundation
import Testing
@testable import WidgetDomain

@Suite("TenX day entries")
struct TenXDayEntryRulesTests {
    typealias Machine = TenXStateMachine

    static func refusal(_ state: TenXState, _ drafts: [TenXFocusDraft], now: Date = TenXFixture.now) -> RuleViolation? {
        var context = TenXFixture.context(now: now)
        let violation = ruleViolation { _ = try Machine.reduce(state, .createDayEntry(focuses: drafts), context: &context) }
        var fresh = TenXFixture.context(now: now)
        #expect(context.makeID() == fresh.makeID(), "a refused day must not draw ids")
        return violation
    }

    @Test func threeLinkedFocusesCreateTodaysEntry() throws {
        let state = try TenXFixture.onboarded(goals: ["Health", "Career"])
        let (health, career) = (state.goals[0].id, state.goals[1].id)
        let drafts = [
            TenXFocusDraft(title: " Run 5k ", goalId: health),
            TenXFocusDraft(title: "Ship the draft", goalId: career, carriedFromDayKey: "2026-11-21"),
            TenXFocusDraft(title: "Stretch", goalId: health),
        ]
        var context = TenXFixture.context(seed: 11)
        let transition = try Machine.reduce(state, .createDayEntry(focuses: drafts), context: &context)
        let entry = try #require(transition.state.entry(for: TenXFixture.today))

        var ids = TenXFixture.context(seed: 11)
        #expect(entry.createdAt == TenXFixture.now)
        #expect(entry.focuses == [
            TenXFocus(id: ids.makeID(), title: "Run 5k", goalId: health, sortOrder: 0, createdAt: TenXFixture.now),
            TenXFocus(id: ids.makeID(), title: "Ship the draft", goalId: career, sortOrder: 1,
                      carriedFromDayKey: TenXFixture.day("2026-11-21"), createdAt: TenXFixture.now),
            TenXFocus(id: ids.makeID(), title: "Stretch", goalId: health, sortOrder: 2, createdAt: TenXFixture.now),
        ])
        #expect(entry.completedCount == 0)
        #expect(transition.state.dayEntries.count == 1)
        #expect(transition.records.isEmpty)
    }

    @Test("anything but exactly three drafts is refused", arguments: [0, 1, 2, 4, 5])
    func wrongCount(count: Int) throws {
        let state = try TenXFixture.onboarded()
        let drafts = Array(repeating: TenXFocusDraft(title: "X", goalId: state.goals[0].id), count: count)
        let violation = Self.refusal(state, drafts)
        #expect(violation?.code == "wrong_focus_count")
        #expect(violation?.message == "You must set exactly 3 focuses, not \(count).")
    }

    @Test func aSecondEntryForTheSameDayIsRefused() throws {
        let state = try TenXFixture.withDay(try TenXFixture.onboarded(), TenXFixture.today)
        let violation = Self.refusal(state, TenXFixture.drafts(state.goals[0].id), now: TenXFixture.now.addingTimeInterval(3600))
        #expect(violation?.code == "day_already_set")
        #expect(violation?.message == "Today is already set (2026-11-22).")
    }

    @Test("an empty focus title is refused with its position", arguments: [0, 1, 2])
    func emptyTitle(position: Int) throws {
        let state = try TenXFixture.onboarded()
        var drafts = TenXFixture.drafts(state.goals[0].id)
        drafts[position].title = "  \n "
        let violation = Self.refusal(state, drafts)
        #expect(violation?.code == "empty_focus_title")
        #expect(violation?.message == "Focus \(position + 1) is empty.")
    }

    @Test func aFocusTitleWithALineBreakIsRefused() throws {
        let state = try TenXFixture.onboarded()
        var drafts = TenXFixture.drafts(state.goals[0].id)
        drafts[2].title = "Read\nchapter 3"
        let violation = Self.refusal(state, drafts)
        #expect(violation?.code == "invalid_focus_title")
        #expect(violation?.message.hasPrefix("Focus 3") == true)
    }

    @Test func focusTitleLengthIsBounded() throws {
        let state = try TenXFixture.onboarded()
        var drafts = TenXFixture.drafts(state.goals[0].id)
        drafts[1].title = String(repeating: "a", count: 140)
        #expect(try TenXFixture.reduce(state, .createDayEntry(focuses: drafts)).entry(for: TenXFixture.today) != nil)
        drafts[1].title += "a"
        #expect(Self.refusal(state, drafts)?.code == "focus_title_too_long")
    }

    @Test("a focus without a goal link is refused", arguments: [nil, ""] as [String?])
    func missingGoal(goalId: String?) throws {
        let state = try TenXFixture.onboarded()
        var drafts = TenXFixture.drafts(state.goals[0].id)
        drafts[2].goalId = goalId
        let violation = Self.refusal(state, drafts)
        #expect(violation?.code == "missing_goal_link")
        #expect(violation?.message == "Focus 3 must be linked to a goal.")
    }

    @Test func aFocusLinkedToAnUnknownGoalIsRefused() throws {
        let state = try TenXFixture.onboarded()
        var drafts = TenXFixture.drafts(state.goals[0].id)
        drafts[0].goalId = "no-such-goal"
        #expect(Self.refusal(state, drafts)?.code == "unknown_goal")
    }

    @Test func aFocusLinkedToAnArchivedGoalIsRefused() throws {
        var state = try TenXFixture.onboarded(goals: ["A", "B"])
        state = try TenXFixture.reduce(state, .archiveGoal(goalId: state.goals[0].id))
        var drafts = TenXFixture.drafts(state.goals[1].id)
        drafts[1].goalId = state.goals[0].id
        let violation = Self.refusal(state, drafts)
        #expect(violation?.code == "goal_not_active")
        #expect(violation?.message.contains("is not active") == true)
    }

    @Test("carriedFromDayKey must be a real day before today", arguments: [
        "2026-11-22", "2026-11-23", "2026-02-30", "21-11-2026", "yesterday", "",
    ])
    func invalidCarriedFrom(value: String) throws {
        let state = try TenXFixture.onboarded()
        var drafts = TenXFixture.drafts(state.goals[0].id)
        drafts[1].carriedFromDayKey = value
        let violation = Self.refusal(state, drafts)
        #expect(violation?.code == "invalid_carried_from")
        #expect(violation?.message.hasPrefix("Focus 2") == true)
    }

    @Test func checksRunInTheSeedsOrder() throws {
        let state = try TenXFixture.withDay(try TenXFixture.onboarded(), TenXFixture.today)
        // Wrong count beats "already set"; "already set" beats a bad focus.
        #expect(Self.refusal(state, [TenXFocusDraft(title: "", goalId: nil)])?.code == "wrong_focus_count")
        #expect(Self.refusal(state, Array(repeating: TenXFocusDraft(title: "", goalId: nil), count: 3))?.code == "day_already_set")
        // Within one focus: title, then link; the first bad focus wins.
        let fresh = try TenXFixture.onboarded()
        let drafts = [
            TenXFocusDraft(title: "ok", goalId: fresh.goals[0].id),
            TenXFocusDraft(title: " ", goalId: nil),
            TenXFocusDraft(title: "x", goalId: "unknown"),
        ]
        #expect(Self.refusal(fresh, drafts)?.message == "Focus 2 is empty.")
    }

    @Test func creatingADayDoesNotRequireTheOnboardingFlag() throws {
        let goal = try TenXFixture.reduce(.initial, .createGoal(title: "Health"))
        let state = try TenXFixture.reduce(goal, .createDayEntry(focuses: TenXFixture.drafts(goal.goals[0].id)))
        #expect(state.entry(for: TenXFixture.today) != nil)
        #expect(state.needsOnboarding)
    }

    @Test func anEntryCanNeverBeCreatedWithoutAnActiveGoal() {
        #expect(Self.refusal(.initial, TenXFixture.drafts("g"))?.code == "unknown_goal")
    }
}
