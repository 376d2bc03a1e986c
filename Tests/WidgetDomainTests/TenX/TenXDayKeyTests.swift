import Foundation
import Testing
@testable import WidgetDomain

/// Day keys (make / previous / date conversion) with Core's `DayKey` and `LocalCalendar`, which
/// TenX uses for every day boundary.
@Suite("TenX day keys")
struct TenXDayKeyTests {
    @Test("makes the local day of an instant", arguments: [
        ("Europe/Berlin", "2026-11-22"), ("America/Los_Angeles", "2026-11-22"),
        ("Pacific/Kiritimati", "2026-11-22"), ("Pacific/Pago_Pago", "2026-11-21"), ("Asia/Tokyo", "2026-11-22"),
    ])
    func makeFromDate(zone: String, expected: String) {
        // 2026-11-22T09:30:00Z
        #expect(LocalCalendar(timeZone: TenXFixture.zone(zone)).dayKey(for: TenXFixture.now).rawValue == expected)
    }

    @Test func theSameInstantIsADifferentDayAcrossTheDateLine() {
        let lateUTC = Date(timeIntervalSince1970: 1_795_384_800)  // 2026-11-22T22:00:00Z
        #expect(LocalCalendar(timeZone: TenXFixture.zone("Asia/Tokyo")).dayKey(for: lateUTC) == TenXFixture.day("2026-11-23"))
        #expect(LocalCalendar(timeZone: TenXFixture.zone("America/New_York")).dayKey(for: lateUTC) == TenXFixture.day("2026-11-22"))
    }

    @Test("previous crosses month, year and leap-day boundaries", arguments: [
        ("2026-03-01", "2026-02-28"), ("2028-03-01", "2028-02-29"), ("2027-01-01", "2026-12-31"),
        ("2026-11-22", "2026-11-21"), ("2026-10-01", "2026-09-30"),
    ])
    func previous(day: String, expected: String) {
        #expect(TenXFixture.day(day).previous.rawValue == expected)
        #expect(TenXFixture.day(expected).next.rawValue == day)
    }

    @Test("writes yyyy-MM-dd zero-padded, as %04d-%02d-%02d does", arguments: [
        (2026, 11, 22), (2026, 1, 2), (987, 3, 4), (1, 1, 1), (12345, 12, 31), (-5, 6, 7),
    ])
    func writesZeroPaddedParts(year: Int, month: Int, day: Int) {
        #expect(DayKey(year: year, month: month, day: day).rawValue == String(format: "%04d-%02d-%02d", year, month, day))
    }

    @Test func parsesOnlyRealDays() {
        #expect(DayKey(rawValue: "2026-11-22") == DayKey(year: 2026, month: 11, day: 22))
        for bad in ["2026-2-01", "2026-02-29", "2026-13-01", "26-11-22", "2026/11/22", "", "2026-11-22T00:00"] {
            #expect(DayKey(rawValue: bad) == nil, "\(bad)")
        }
    }

    @Test("a day key converts to its local start and back", arguments: [
        ("Europe/Berlin", "2026-11-22", 1_795_302_000.0),
        ("America/New_York", "2026-03-08", 1_772_946_000),
        ("America/New_York", "2026-11-01", 1_793_505_600),
        ("America/Santiago", "2026-09-06", 1_788_667_200),
        ("Asia/Beirut", "2026-03-29", 1_774_735_200),
    ])
    func dateConversion(zone: String, day: String, startEpoch: Double) {
        let calendar = LocalCalendar(timeZone: TenXFixture.zone(zone))
        let start = calendar.start(of: TenXFixture.day(day))
        #expect(start == Date(timeIntervalSince1970: startEpoch))
        #expect(calendar.dayKey(for: start) == TenXFixture.day(day))
        #expect(calendar.dayKey(for: start.addingTimeInterval(-1)) == TenXFixture.day(day).previous)
        #expect(calendar.startOfDay(for: start.addingTimeInterval(3600 * 5)) == start)
    }

    @Test("DST days are 23 or 25 hours long", arguments: [
        ("America/New_York", "2026-03-08", 23.0), ("America/New_York", "2026-11-01", 25),
        ("America/Santiago", "2026-09-06", 23), ("America/Santiago", "2026-04-04", 25),
        ("Asia/Beirut", "2026-03-29", 23), ("Europe/Berlin", "2026-11-22", 24),
    ])
    func dstDayLength(zone: String, day: String, hours: Double) {
        let calendar = LocalCalendar(timeZone: TenXFixture.zone(zone))
        let length = calendar.start(of: TenXFixture.day(day).next).timeIntervalSince(calendar.start(of: TenXFixture.day(day)))
        #expect(length == hours * 3600)
    }

    @Test("where DST starts at midnight the day begins at 01:00", arguments: ["America/Santiago", "Asia/Beirut"])
    func midnightDSTDayStartsAtOne(zone: String) throws {
        let day = zone == "Asia/Beirut" ? TenXFixture.day("2026-03-29") : TenXFixture.day("2026-09-06")
        let calendar = LocalCalendar(timeZone: TenXFixture.zone(zone))
        #expect(calendar.hour(of: calendar.start(of: day)) == 1)
        #expect(calendar.nextMidnight(after: calendar.start(of: day).addingTimeInterval(-60)) == calendar.start(of: day))
    }

    @Test func dayKeysEncodeAsTheirString() throws {
        let data = try JSONEncoder().encode([TenXFixture.day("2026-03-08")])
        #expect(String(decoding: data, as: UTF8.self) == #"["2026-03-08"]"#)
        #expect(try JSONDecoder().decode([DayKey].self, from: data) == [TenXFixture.day("2026-03-08")])
    }
}
