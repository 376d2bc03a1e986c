import Foundation
import Testing
@testable import WidgetDomain

@Suite("DietTimelinePolicy")
struct DietTimelinePolicyTests {
    typealias Policy = DietTimelinePolicy

    func timeline(
        _ state: DietState = DietFixture.synced, kind: DietWidgetKind = .dietProgress, now: Date,
        zone: TimeZone = DietFixture.berlin
    ) -> Timeline<DietWidgetContent> {
        Policy.timeline(for: state, kind: kind, now: now, calendar: LocalCalendar(timeZone: zone))
    }

    func progress(_ content: DietWidgetContent) -> DietProgressContent? {
        if case .progress(let progress) = content { return progress }
        return nil
    }

    @Test func constantsAreTheSeeds() {
        #expect(Policy.activeHours == 6..<22)
        #expect(Policy.hourlyRefresh == 3600)
    }

    @Test func duringActiveHoursNowNextHourAndMidnight() throws {
        let timeline = timeline(now: Fixture.now)  // 10:30 in Berlin
        #expect(timeline.policy == .atEnd)
        #expect(timeline.entries.map(\.date) == [
            Fixture.now, Fixture.now.addingTimeInterval(3600), DietFixture.instant("2026-11-23T00:00:00+01:00"),
        ])
    }

    @Test func nowAndHourlyEntriesShowTodayTheMidnightEntryShowsTheResetDay() throws {
        let entries = timeline(now: Fixture.now).entries
        let now = try #require(progress(entries[0].content))
        let hourly = try #require(progress(entries[1].content))
        let midnight = try #require(progress(entries[2].content))
        #expect(now.nutrition == DietFixture.lunch)
        #expect(now.dayKey == DietFixture.today)
        #expect(hourly == now)
        #expect(midnight.view == .progress)
        #expect(midnight.dayKey == DayKey(year: 2026, month: 11, day: 23))
        #expect(midnight.nutrition == .zero)
        #expect(midnight.caloriesRemaining == 2000)
        #expect(midnight.calorieProgress == 0)
        #expect(midnight.goals == .default)
    }

    @Test("the hourly entry exists exactly for local hours 6–21", arguments: [
        ("2026-11-22T05:59:59+01:00", false), ("2026-11-22T06:00:00+01:00", true), ("2026-11-22T12:00:00+01:00", true),
        ("2026-11-22T21:59:59+01:00", true), ("2026-11-22T22:00:00+01:00", false), ("2026-11-22T23:30:00+01:00", false),
        ("2026-11-22T00:00:00+01:00", false),
    ])
    func hourlyEntryWindow(time: String, hourly: Bool) {
        let now = DietFixture.instant(time)
        let timeline = timeline(now: now)
        let expected = hourly
            ? [now, now.addingTimeInterval(3600), DietFixture.instant("2026-11-23T00:00:00+01:00")]
            : [now, DietFixture.instant("2026-11-23T00:00:00+01:00")]
        #expect(timeline.entries.map(\.date) == expected)
    }

    @Test func theHourIsTheUsersLocalHour() {
        // 05:30 UTC is 06:30 in Berlin (hourly) and 00:30 in New York (not).
        let now = DietFixture.instant("2026-11-22T05:30:00Z")
        #expect(timeline(now: now, zone: DietFixture.berlin).entries.count == 3)
        #expect(timeline(now: now, zone: DietFixture.newYork).entries.map(\.date) == [
            now, DietFixture.instant("2026-11-23T00:00:00-05:00"),
        ])
    }

    @Test func springForwardDayInNewYork() {
        // 2026-03-08: clocks jump 02:00 EST → 03:00 EDT; the day is 23 hours long.
        let early = DietFixture.instant("2026-03-08T01:30:00-05:00")
        #expect(timeline(now: early, zone: DietFixture.newYork).entries.map(\.date) == [
            early, DietFixture.instant("2026-03-09T00:00:00-04:00"),
        ])
        #expect(DietFixture.instant("2026-03-09T00:00:00-04:00").timeIntervalSince(early) == 21.5 * 3600)

        let morning = DietFixture.instant("2026-03-08T06:00:00-04:00")
        #expect(timeline(now: morning, zone: DietFixture.newYork).entries.map(\.date) == [
            morning, DietFixture.instant("2026-03-08T07:00:00-04:00"), DietFixture.instant("2026-03-09T00:00:00-04:00"),
        ])
        // 05:30 EDT exists only after the jump and is still before 06:00: no hourly entry.
        let beforeSix = DietFixture.instant("2026-03-08T05:30:00-04:00")
        #expect(timeline(now: beforeSix, zone: DietFixture.newYork).entries.count == 2)
    }

    @Test func fallBackDayInNewYork() {
        // 2026-11-01: clocks fall back 02:00 EDT → 01:00 EST; the day is 25 hours long.
        let midnight = DietFixture.instant("2026-11-02T00:00:00-05:00")
        for first in ["2026-11-01T01:30:00-04:00", "2026-11-01T01:30:00-05:00"] {
            let now = DietFixture.instant(first)
            #expect(timeline(now: now, zone: DietFixture.newYork).entries.map(\.date) == [now, midnight])
        }
        let six = DietFixture.instant("2026-11-01T06:00:00-05:00")
        #expect(timeline(now: six, zone: DietFixture.newYork).entries.map(\.date) == [
            six, DietFixture.instant("2026-11-01T07:00:00-05:00"), midnight,
        ])
        let late = DietFixture.instant("2026-11-01T21:59:00-05:00")
        #expect(timeline(now: late, zone: DietFixture.newYork).entries.map(\.date) == [
            late, DietFixture.instant("2026-11-01T22:59:00-05:00"), midnight,
        ])
        #expect(midnight.timeIntervalSince(DietFixture.instant("2026-11-01T00:00:00-04:00")) == 25 * 3600)
    }

    @Test func dayStartingAt1amWhereMidnightDoesNotExist() throws {
        // Santiago springs forward at 24:00 on 2026-09-05: the 6th begins at 01:00 (-03).
        let now = DietFixture.instant("2026-09-05T21:30:00-04:00")
        let entries = timeline(now: now, zone: DietFixture.santiago).entries
        #expect(entries.map(\.date) == [now, now.addingTimeInterval(3600), DietFixture.instant("2026-09-06T01:00:00-03:00")])
        let last = try #require(entries.last.flatMap { progress($0.content) })
        #expect(last.dayKey == DayKey(year: 2026, month: 9, day: 6))
    }

    @Test func aZoneChangeMovesMidnightAndTheDay() throws {
        // Synced at 10:30 Berlin on the 22nd; now the user is in New York (04:30, still the 22nd).
        let newYork = timeline(now: Fixture.now, zone: DietFixture.newYork)
        #expect(newYork.entries.map(\.date) == [Fixture.now, DietFixture.instant("2026-11-23T00:00:00-05:00")])
        #expect(try #require(progress(newYork.entries[0].content)).nutrition == DietFixture.lunch)

        // …or in Tokyo, where 18:30 on the 22nd: same day, its own midnight.
        let tokyo = timeline(now: Fixture.now, zone: DietFixture.tokyo)
        #expect(tokyo.entries.map(\.date) == [
            Fixture.now, Fixture.now.addingTimeInterval(3600), DietFixture.instant("2026-11-23T00:00:00+09:00"),
        ])

        // Read at 07:00 on the 23rd in Tokyo: the Berlin day's totals are no longer today's.
        let nextDay = timeline(now: DietFixture.instant("2026-11-23T07:00:00+09:00"), zone: DietFixture.tokyo)
        let first = try #require(progress(nextDay.entries[0].content))
        #expect(first.dayKey == DayKey(year: 2026, month: 11, day: 23))
        #expect(first.nutrition == .zero)
    }

    @Test func aStateLastWrittenYesterdayShowsZerosNow() throws {
        let now = DietFixture.instant("2026-11-23T09:00:00+01:00")
        let first = try #require(progress(timeline(now: now).entries[0].content))
        #expect(first.nutrition == .zero)
        #expect(first.caloriesRemaining == 2000)
    }

    @Test("every kind gets the same dates", arguments: DietWidgetKind.allCases)
    func everyKindSameDates(kind: DietWidgetKind) {
        let timeline = timeline(kind: kind, now: Fixture.now)
        #expect(timeline.entries.map(\.date) == [
            Fixture.now, Fixture.now.addingTimeInterval(3600), DietFixture.instant("2026-11-23T00:00:00+01:00"),
        ])
        #expect(timeline.entries.allSatisfy { $0.content.kind == kind })
    }

    @Test func withoutDataEveryEntryIsThePlaceholder() {
        let timeline = timeline(.initial, now: Fixture.now)
        #expect(timeline.entries.count == 3)
        #expect(timeline.entries.allSatisfy { progress($0.content)?.view == .placeholder })
    }

    @Test("entries are ordered and start now", arguments: [
        "2026-11-22T00:00:00+01:00", "2026-11-22T10:30:00+01:00", "2026-11-22T21:59:59+01:00", "2026-11-22T23:59:59+01:00",
    ])
    func ordered(time: String) throws {
        let now = DietFixture.instant(time)
        let dates = timeline(now: now).entries.map(\.date)
        #expect(dates == dates.sorted())
        #expect(Set(dates).count == dates.count)
        #expect(try #require(dates.first) == now)
    }
}
