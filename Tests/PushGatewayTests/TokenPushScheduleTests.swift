import Foundation
import PushGateway
import Testing

/// The budget-aware coalescing rule of one token, on dates the test chooses.
@Suite("A token's push schedule")
struct TokenPushScheduleTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let budget = PushBudget(coalescingDelay: 10, minimumInterval: 300, dailyLimit: 3)

    static func at(_ seconds: TimeInterval) -> Date { start.addingTimeInterval(seconds) }

    /// One token's schedule under ``budget``, changed through a reference: `#expect` cannot call
    /// a mutating method of a local variable.
    final class Token {
        var value = TokenPushSchedule()

        func changed(at date: Date, widgetReloadsAt reload: Date?) -> TokenPushSchedule.ChangeOutcome {
            value.changed(at: date, widgetReloadsAt: reload, budget: TokenPushScheduleTests.budget)
        }

        func takeDue(at date: Date) -> Bool { value.takeDue(at: date) }
        func answered() { value.answered() }
        func retry(at date: Date) { value.retry(at: date, budget: TokenPushScheduleTests.budget) }
    }

    @Test func aChangeIsPushedOnceAfterTheCoalescingDelay() {
        let schedule = Token()
        #expect(schedule.changed(at: Self.at(0), widgetReloadsAt: nil) == .scheduled(Self.at(10)))
        #expect(!schedule.takeDue(at: Self.at(9.9)))
        #expect(schedule.takeDue(at: Self.at(10)))
        #expect(!schedule.takeDue(at: Self.at(10)), "sent once")
        #expect(schedule.value.inFlight?.sentAt == Self.at(10) && schedule.value.pending == nil)
        schedule.answered()
        #expect(schedule.value.inFlight == nil && schedule.value.sent == [Self.at(10)])
    }

    @Test func tenChangesWithinTheIntervalAreOnePush() {
        let schedule = Token()
        _ = schedule.changed(at: Self.at(0), widgetReloadsAt: nil)
        #expect(schedule.takeDue(at: Self.at(10)))
        schedule.answered()
        // Ten changes in the 5 minutes after that push: one push, at the interval's end.
        let outcomes = (1...10).map { schedule.changed(at: Self.at(10 + 25 * Double($0)), widgetReloadsAt: nil) }
        #expect(outcomes.first == .scheduled(Self.at(310)))
        #expect(outcomes.dropFirst().allSatisfy { $0 == .joined(Self.at(310)) })
        #expect(!schedule.takeDue(at: Self.at(309)) && schedule.takeDue(at: Self.at(310)))
        #expect(schedule.value.sent == [Self.at(10), Self.at(310)])
    }

    @Test func aChangeDuringAPushInFlightWaitsTheIntervalFromIt() {
        let schedule = Token()
        _ = schedule.changed(at: Self.at(0), widgetReloadsAt: nil)
        #expect(schedule.takeDue(at: Self.at(10)))
        #expect(schedule.changed(at: Self.at(11), widgetReloadsAt: nil) == .scheduled(Self.at(310)))
        schedule.answered()
        #expect(schedule.value.due == Self.at(310), "the change that came during the flight is not lost")
    }

    @Test func theDailyLimitHoldsPushesUntilTheOldestIsADayOld() {
        let schedule = Token()
        var now = Self.at(0)
        for _ in 0..<3 {
            guard case .scheduled(let due) = schedule.changed(at: now, widgetReloadsAt: nil) else {
                Issue.record("not scheduled")
                return
            }
            #expect(schedule.takeDue(at: due))
            schedule.answered()
            now = due.addingTimeInterval(1)
        }
        #expect(schedule.value.sent == [Self.at(10), Self.at(310), Self.at(610)], "each the interval after the one before")
        // A fourth change waits until the first push of the three leaves the 24 hours.
        #expect(schedule.changed(at: now, widgetReloadsAt: nil) == .scheduled(Self.at(10 + PushBudget.day)))
        #expect(!schedule.takeDue(at: Self.at(9 + PushBudget.day)) && schedule.takeDue(at: Self.at(10 + PushBudget.day)))
        #expect(schedule.value.sent == [Self.at(310), Self.at(610), Self.at(10 + PushBudget.day)], "a push a day old stops counting")
    }

    @Test func noSecondPushIsSentWhileOneIsInFlight() {
        let schedule = Token()
        _ = schedule.changed(at: Self.at(0), widgetReloadsAt: nil)
        #expect(schedule.takeDue(at: Self.at(10)))
        _ = schedule.changed(at: Self.at(11), widgetReloadsAt: nil)
        #expect(!schedule.takeDue(at: Self.at(310)), "the first is not answered yet")
        schedule.answered()
        #expect(schedule.takeDue(at: Self.at(311)))
        #expect(schedule.value.sent == [Self.at(10), Self.at(311)])
    }

    @Test func aChangeTheWidgetsOwnReloadCoversIsNotPushed() {
        let schedule = Token()
        // The device reloads the widget by itself 5 s from now, before the push could go.
        #expect(schedule.changed(at: Self.at(0), widgetReloadsAt: Self.at(5)) == .coveredByTimeline)
        #expect(schedule.value.due == nil)
        // A widget that reloads only later still gets its push.
        #expect(schedule.changed(at: Self.at(0), widgetReloadsAt: Self.at(60)) == .scheduled(Self.at(10)))
        // A change to a widget reloading before the push joins nothing: the push helps until 60 s.
        #expect(schedule.changed(at: Self.at(1), widgetReloadsAt: Self.at(8)) == .coveredByTimeline)
        #expect(schedule.value.pending?.helpsUntil == Self.at(60))
    }

    @Test func aPushWhoseWidgetsAllReloadedBeforeItWentIsDropped() {
        let schedule = Token()
        _ = schedule.changed(at: Self.at(0), widgetReloadsAt: Self.at(60))
        // The gateway was late to send it (stopped, or the timer slipped) past the widget's reload.
        #expect(!schedule.takeDue(at: Self.at(61)))
        #expect(schedule.value.pending == nil && schedule.value.inFlight == nil && schedule.value.sent.isEmpty, "no push, no budget spent")
    }

    @Test func aFailedPushGoesAgainAtTheRetryDateWithTheChangesSinceAndGivesItsBudgetBack() {
        let schedule = Token()
        _ = schedule.changed(at: Self.at(0), widgetReloadsAt: Self.at(600))
        #expect(schedule.takeDue(at: Self.at(10)))
        _ = schedule.changed(at: Self.at(12), widgetReloadsAt: nil)
        schedule.retry(at: Self.at(40))
        #expect(schedule.value.sent.isEmpty && schedule.value.inFlight == nil)
        // The change during the flight was due at 310, the interval from the failed push; that
        // push no longer counts, so the retry carries both at the retry date.
        #expect(schedule.value.pending?.due == Self.at(40) && schedule.value.pending?.helpsUntil == nil)

        let alone = Token()
        _ = alone.changed(at: Self.at(0), widgetReloadsAt: Self.at(600))
        #expect(alone.takeDue(at: Self.at(10)))
        alone.retry(at: Self.at(40))
        #expect(alone.value.pending?.due == Self.at(40) && alone.value.pending?.helpsUntil == Self.at(600))
    }

    @Test func aScheduleStoredAndReadBackIsTheSame() throws {
        let schedule = Token()
        _ = schedule.changed(at: Self.at(0), widgetReloadsAt: Self.at(600))
        #expect(schedule.takeDue(at: Self.at(10)))
        _ = schedule.changed(at: Self.at(12), widgetReloadsAt: nil)
        let stored = try JSONEncoder().encode(schedule.value)
        #expect(try JSONDecoder().decode(TokenPushSchedule.self, from: stored) == schedule.value)
    }

    @Test func aRefusalDropsThePushAndHoldsForItsTopicOnly() {
        var schedule = TokenPushSchedule()
        _ = schedule.changed(at: Self.at(0), widgetReloadsAt: nil, budget: Self.budget)
        let sent = schedule.takeDue(at: Self.at(10))
        _ = schedule.changed(at: Self.at(11), widgetReloadsAt: nil, budget: Self.budget)
        schedule.refused(.init(reason: "DeviceTokenNotForTopic", topic: "a.push-type.widgets"))
        #expect(sent && schedule.inFlight == nil && schedule.pending == nil, "the push in flight answered, the one waiting dropped")
        let liftedForItsTopic = schedule.liftRefusal(unlessFor: "a.push-type.widgets")
        #expect(!liftedForItsTopic && schedule.refusal?.reason == "DeviceTokenNotForTopic")
        let liftedForAnother = schedule.liftRefusal(unlessFor: "b.push-type.widgets")
        #expect(liftedForAnother && schedule.refusal == nil)
    }
}
