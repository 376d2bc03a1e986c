import Foundation
import Testing
@testable import ServiceSupport

@Suite("Coalescing schedule")
struct CoalescingScheduleTests {
    let start = ContinuousClock.now

    @Test func aKeyIsDueOnceItsDelayHasPassedSinceItsFirstChange() {
        var schedule = CoalescingSchedule<String>(delay: .milliseconds(25))
        schedule.add("a", now: start)
        schedule.add("a", now: start + .milliseconds(20))  // rides along: not postponed
        #expect(schedule.takeDue(now: start + .milliseconds(24), limit: 10).isEmpty)
        #expect(schedule.timeUntilNextDue(now: start + .milliseconds(24)) == .milliseconds(1))
        #expect(schedule.takeDue(now: start + .milliseconds(25), limit: 10) == ["a"])
        #expect(schedule.timeUntilNextDue(now: start + .milliseconds(25)) == nil)
    }

    @Test func keysChangedWithinOneStepOfTheGridFallDueTogether() {
        var schedule = CoalescingSchedule<String>(delay: .milliseconds(25), granularity: .milliseconds(10))
        schedule.add("a", now: start)  // the grid starts at its due instant, start + 25 ms
        schedule.add("b", now: start + .milliseconds(3))
        schedule.add("c", now: start + .milliseconds(10))
        schedule.add("d", now: start + .milliseconds(11))
        #expect(schedule.takeDue(now: start + .milliseconds(34), limit: 10) == ["a"])
        #expect(schedule.timeUntilNextDue(now: start + .milliseconds(34)) == .milliseconds(1))
        #expect(schedule.takeDue(now: start + .milliseconds(35), limit: 10) == ["b", "c"], "never before its own delay")
        #expect(schedule.takeDue(now: start + .milliseconds(44), limit: 10).isEmpty)
        #expect(schedule.takeDue(now: start + .milliseconds(45), limit: 10) == ["d"])
    }

    @Test func keysComeDueInOrderAndAtMostLimitAtATime() {
        var schedule = CoalescingSchedule<Int>(delay: .milliseconds(10))
        for key in 0..<5 { schedule.add(key, now: start + .milliseconds(key)) }
        #expect(schedule.takeDue(now: start + .milliseconds(12), limit: 2) == [0, 1])
        #expect(schedule.takeDue(now: start + .milliseconds(12), limit: 10) == [2])
        schedule.add(0, now: start + .milliseconds(12))  // taken keys can wait again
        #expect(schedule.takeAll() == [3, 4, 0])
        #expect(schedule.takeAll().isEmpty)
    }
}

@Suite("Refresh schedule")
struct RefreshScheduleTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func keysComeDueAtTheirOwnDatesEarliestFirst() {
        var schedule = RefreshSchedule<String>()
        schedule.schedule("late", at: now + 3_600)
        schedule.schedule("soon", at: now + 5)
        schedule.schedule("past", at: now - 1)
        #expect(schedule.nextDue == now - 1)
        #expect(schedule.takeDue(now: now) == ["past"])
        #expect(schedule.nextDue == now + 5)
        #expect(schedule.takeDue(now: now + 5) == ["soon"])
        #expect(schedule.count == 1)
        #expect(schedule.takeDue(now: now + 3_600) == ["late"])
        #expect(schedule.nextDue == nil)
    }

    @Test func schedulingAgainReplacesTheDate() {
        var schedule = RefreshSchedule<String>()
        schedule.schedule("a", at: now + 10)
        schedule.schedule("a", at: now + 60)
        #expect(schedule.takeDue(now: now + 30).isEmpty, "the replaced date is not due")
        #expect(schedule.takeDue(now: now + 60) == ["a"])
        schedule.schedule("a", at: now + 100)
        schedule.schedule("a", at: now + 70)
        #expect(schedule.takeDue(now: now + 200) == ["a"], "once, at the newest date")
    }

    @Test func atMostTheLimitIsTakenAndTheRestStaysDue() {
        var schedule = RefreshSchedule<Int>()
        for key in 0..<5 { schedule.schedule(key, at: now + Double(key)) }
        let first = schedule.takeDue(now: now + 10, limit: 2)
        #expect(first == [0, 1])
        #expect(schedule.nextDue == now + 2)
        let rest = schedule.takeDue(now: now + 10)
        #expect(rest == [2, 3, 4])
    }

    @Test func manyReschedulesKeepOneDatePerKey() {
        var schedule = RefreshSchedule<Int>()
        for round in 0..<1_000 {
            for key in 0..<10 { schedule.schedule(key, at: now + Double(round)) }
        }
        #expect(schedule.count == 10)
        #expect(Set(schedule.takeDue(now: now + 998)).isEmpty)
        #expect(Set(schedule.takeDue(now: now + 999)) == Set(0..<10))
    }
}
