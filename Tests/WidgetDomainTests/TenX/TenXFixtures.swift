import Foundation
import Testing
@testable import WidgetDomain

/// Fixed inputs for the TenX tests: fixed clocks and zones, and states built through the real
/// state machine so every fixture satisfies the invariants.
enum TenXFixture {
    /// 2026-11-22T09:30:00Z = 10:30 in Berlin, local day 2026-11-22.
    static let now = Fixture.now
    static let berlin = Fixture.timeZone
    static let today = DayKey(year: 2026, month: 11, day: 22)
    static let calendar = LocalCalendar(timeZone: berlin)

    /// `day("2026-03-08")` for readable tests.
    static func day(_ text: String) -> DayKey { DayKey(rawValue: text)! }

    static func zone(_ identifier: String) -> TimeZone { TimeZone(identifier: identifier)! }

    static func context(now: Date = TenXFixture.now, timeZone: TimeZone = TenXFixture.berlin, seed: UInt64 = 7)
        -> ReduceContext
    {
        ReduceContext(now: now, timeZone: timeZone, random: RandomSource(SeededRandom(seed: seed)))
    }

    /// Noon of `day` in `zone`: safely inside the day whatever its DST.
    static func noon(of day: DayKey, in zone: TimeZone = TenXFixture.berlin) -> Date {
        LocalCalendar(timeZone: zone).start(of: day).addingTimeInterval(12 * 3600)
    }

    static func reduce(_ state: TenXState, _ intent: TenXIntent, now: Date = TenXFixture.now,
                       timeZone: TimeZone = TenXFixture.berlin) throws -> TenXState {
        var context = context(now: now, timeZone: timeZone, seed: UInt64(now.timeIntervalSince1970))
        return try TenXStateMachine.reduce(state, intent, context: &context).state
    }

    /// A user who finished onboarding with goals titled `titles` (created a second apart).
    static func onboarded(goals titles: [String] = ["Health", "Career"]) throws -> TenXState {
        var state = TenXState.initial
        for (index, title) in titles.enumerated() {
            state = try reduce(state, .createGoal(title: title), now: now.addingTimeInterval(Double(index) - 86_400 * 60))
        }
        return try reduce(state, .completeOnboarding)
    }

    static func drafts(_ goalId: String, titles: [String] = ["Run 5k", "Write", "Read"]) -> [TenXFocusDraft] {
        titles.map { TenXFocusDraft(title: $0, goalId: goalId) }
    }

    /// `state` with an entry for `day` (set at noon in `zone`) whose first `completed` focuses are done.
    static func withDay(_ state: TenXState, _ day: DayKey, completed: Int = 0, zone: TimeZone = TenXFixture.berlin)
        throws -> TenXState
    {
        let at = noon(of: day, in: zone)
        let goalId = try #require(state.activeGoals.first).id
        var next = try reduce(state, .createDayEntry(focuses: drafts(goalId)), now: at, timeZone: zone)
        let entry = try #require(next.entry(for: day))
        for focus in entry.focuses.prefix(completed) {
            next = try reduce(next, .toggleFocus(focusId: focus.id), now: at.addingTimeInterval(60), timeZone: zone)
        }
        return next
    }

    /// A plain entry for the streak engine, built directly: `completed` of three focuses done.
    static func entry(_ day: DayKey, completed: Int) -> TenXDayEntry {
        TenXDayEntry(
            dayKey: day, createdAt: now,
            focuses: (0..<3).map { index in
                TenXFocus(
                    id: "\(day)-\(index)", title: "Focus \(index)", goalId: "g", sortOrder: index,
                    isCompleted: index < completed, completedAt: index < completed ? now : nil, createdAt: now)
            })
    }
}
