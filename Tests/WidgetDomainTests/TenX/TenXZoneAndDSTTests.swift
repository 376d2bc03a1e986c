import Foundation
import Testing
@testable import WidgetDomain

/// Time-zone changes and DST: `dayKey` in the user's current zone is the day's identity;
/// midnights come from that zone's calendar.
@Suite("TenX zones and DST")
struct TenXZoneAndDSTTests {
    static func utc(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }

    // MARK: Spring forward / fall back (America/New_York)

    @Test func springForwardDayIsOneDayAndReloadsAtItsRealMidnight() throws {
        let newYork = TenXFixture.zone("America/New_York")
        let calendar = LocalCalendar(timeZone: newYork)
        let day = TenXFixture.day("2026-03-08")
        var state = try TenXFixture.onboarded()
        // Set at 01:59 EST, toggled at 03:01 EDT — two minutes later on the same local day.
        state = try TenXFixture.reduce(state, .createDayEntry(focuses: TenXFixture.drafts(state.goals[0].id)),
                                       now: Self.utc("2026-03-08T06:59:00Z"), timeZone: newYork)
        let focus = try #require(state.entry(for: day)?.focuses[0])
        state = try TenXFixture.reduce(state, .toggleFocus(focusId: focus.id), now: Self.utc("2026-03-08T07:01:00Z"), timeZone: newYork)
        #expect(state.entry(for: day)?.completedCount == 1)

        // 23:45 EDT on the 23-hour day: midnight is 04:00Z, not 05:00Z.
        let late = Self.utc("2026-03-09T03:45:00Z")
        let timeline = TenXTimelinePolicy.timeline(for: state, kind: .home, now: late, calendar: calendar)
        #expect(timeline.entries.first?.content.dayKey == day)
        #expect(timeline.policy == .after(Self.utc("2026-03-09T04:00:00Z")))
        // The evening before, midnight is still EST.
        let eve = TenXTimelinePolicy.timeline(for: state, kind: .home, now: Self.utc("2026-03-08T04:45:00Z"), calendar: calendar)
        #expect(eve.policy == .after(Self.utc("2026-03-08T05:00:00Z")))
    }

    @Test func fallBackRepeatsAnHourButNotTheDay() throws {
        let newYork = TenXFixture.zone("America/New_York")
        let calendar = LocalCalendar(timeZone: newYork)
        let day = TenXFixture.day("2026-11-01")
        // 01:30 EDT and 01:30 EST are both on 2026-11-01.
        let firstPass = Self.utc("2026-11-01T05:30:00Z")
        let secondPass = Self.utc("2026-11-01T06:30:00Z")
        #expect(calendar.dayKey(for: firstPass) == day && calendar.dayKey(for: secondPass) == day)

        var state = try TenXFixture.onboarded()
        state = try TenXFixture.reduce(state, .createDayEntry(focuses: TenXFixture.drafts(state.goals[0].id)), now: firstPass, timeZone: newYork)
        var context = TenXFixture.context(now: secondPass, timeZone: newYork)
        let again = ruleViolation {
            _ = try TenXStateMachine.reduce(state, .createDayEntry(focuses: TenXFixture.drafts(state.goals[0].id)), context: &context)
        }
        #expect(again?.code == "day_already_set")

        // 23:45 EST on the 25-hour day: midnight is 05:00Z.
        let late = Self.utc("2026-11-02T04:45:00Z")
        let timeline = TenXTimelinePolicy.timeline(for: state, kind: .home, now: late, calendar: calendar)
        #expect(timeline.entries.first?.content.dayKey == day)
        #expect(timeline.policy == .after(Self.utc("2026-11-02T05:00:00Z")))
    }

    // MARK: DST starting at midnight

    @Test("where 00:00 does not exist the new day starts at 01:00", arguments: [
        ("America/Santiago", "2026-09-06", "2026-09-06T03:50:00Z", "2026-09-06T04:00:00Z"),
        ("Asia/Beirut", "2026-03-29", "2026-03-28T21:50:00Z", "2026-03-28T22:00:00Z"),
    ])
    func midnightDST(zone: String, day: String, tenToMidnight: String, dayStart: String) throws {
        let timeZone = TenXFixture.zone(zone)
        let calendar = LocalCalendar(timeZone: timeZone)
        let state = try TenXFixture.withDay(try TenXFixture.onboarded(), TenXFixture.day(day).previous, completed: 1, zone: timeZone)

        let before = TenXTimelinePolicy.timeline(for: state, kind: .home, now: Self.utc(tenToMidnight), calendar: calendar)
        #expect(before.policy == .after(Self.utc(dayStart)))
        #expect(before.entries.first?.content.dayKey == TenXFixture.day(day).previous)

        let at = TenXTimelinePolicy.timeline(for: state, kind: .home, now: Self.utc(dayStart), calendar: calendar)
        let content = try #require(at.entries.first?.content)
        #expect(content.dayKey == TenXFixture.day(day))
        #expect(content.state == .needsSetup)
        #expect(content.streak == 1)

        let set = try TenXFixture.reduce(state, .createDayEntry(focuses: TenXFixture.drafts(state.goals[0].id)),
                                         now: Self.utc(dayStart), timeZone: timeZone)
        #expect(set.entry(for: TenXFixture.day(day)) != nil)
    }

    // MARK: Changing zone

    @Test func theDayFollowsTheUsersCurrentZone() throws {
        let tokyo = TenXFixture.zone("Asia/Tokyo")
        let newYork = TenXFixture.zone("America/New_York")
        let instant = Self.utc("2026-11-22T22:00:00Z")  // 07:00 on the 23rd in Tokyo, 17:00 on the 22nd in New York
        var state = try TenXFixture.onboarded()
        state = try TenXFixture.reduce(state, .createDayEntry(focuses: TenXFixture.drafts(state.goals[0].id)), now: instant, timeZone: tokyo)
        let tokyoDay = TenXFixture.day("2026-11-23")
        let tokyoFocus = try #require(state.entry(for: tokyoDay)?.focuses[0])

        // Landed in New York, where it is still the 22nd: the 23rd's focuses are not today's.
        let landed = Self.utc("2026-11-23T02:00:00Z")
        var context = TenXFixture.context(now: landed, timeZone: newYork)
        let violation = ruleViolation { _ = try TenXStateMachine.reduce(state, .toggleFocus(focusId: tokyoFocus.id), context: &context) }
        #expect(violation?.code == "focus_not_today")
        let snapshot = TenXTimelinePolicy.snapshot(for: state, kind: .home, now: landed, calendar: LocalCalendar(timeZone: newYork))
        #expect(snapshot.dayKey == TenXFixture.day("2026-11-22"))
        #expect(snapshot.state == .needsSetup)

        // New York's 22nd can be set; the 23rd's entry is untouched.
        let nyDay = try TenXFixture.reduce(state, .createDayEntry(focuses: TenXFixture.drafts(state.goals[0].id)), now: landed, timeZone: newYork)
        #expect(nyDay.dayEntries.map(\.dayKey) == [TenXFixture.day("2026-11-22"), tokyoDay])
        #expect(nyDay.entry(for: tokyoDay) == state.entry(for: tokyoDay))

        // Once New York reaches the 23rd, the entry set in Tokyo is today's.
        let nextMorning = Self.utc("2026-11-23T14:00:00Z")
        let toggled = try TenXFixture.reduce(nyDay, .toggleFocus(focusId: tokyoFocus.id), now: nextMorning, timeZone: newYork)
        #expect(toggled.entry(for: tokyoDay)?.completedCount == 1)
        let later = TenXTimelinePolicy.snapshot(for: toggled, kind: .home, now: nextMorning, calendar: LocalCalendar(timeZone: newYork))
        #expect(later.dayKey == tokyoDay)
        #expect(later.state == .inProgress)
    }

    @Test func flyingEastSkipsADayButKeepsTheStreakIfTheEntryExists() throws {
        let losAngeles = TenXFixture.zone("America/Los_Angeles")
        let tokyo = TenXFixture.zone("Asia/Tokyo")
        var state = try TenXFixture.withDay(try TenXFixture.onboarded(), TenXFixture.day("2026-11-21"), completed: 1, zone: losAngeles)
        // Departs LA on the 21st evening, lands in Tokyo on the 23rd morning: the 22nd never had an entry.
        let landed = Self.utc("2026-11-22T23:00:00Z")
        #expect(LocalCalendar(timeZone: tokyo).dayKey(for: landed) == TenXFixture.day("2026-11-23"))
        let snapshot = TenXTimelinePolicy.snapshot(for: state, kind: .home, now: landed, calendar: LocalCalendar(timeZone: tokyo))
        #expect(snapshot.streak == 0, "a missing day breaks, whatever the reason")
        state = try TenXFixture.reduce(state, .createDayEntry(focuses: TenXFixture.drafts(state.goals[0].id)), now: landed, timeZone: tokyo)
        #expect(state.entry(for: TenXFixture.day("2026-11-23")) != nil)
    }

    @Test func theSameInstantIsTodayInOneZoneAndTomorrowInAnother() {
        let instant = Self.utc("2026-11-22T22:00:00Z")
        let timelines = ["America/New_York", "Asia/Tokyo"].map {
            TenXTimelinePolicy.snapshot(for: .initial, kind: .home, now: instant, calendar: LocalCalendar(timeZone: TenXFixture.zone($0))).dayKey
        }
        #expect(timelines == [TenXFixture.day("2026-11-22"), TenXFixture.day("2026-11-23")])
    }
}
