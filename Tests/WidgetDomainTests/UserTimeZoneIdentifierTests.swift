import Foundation
import Testing
import WidgetDomain

/// Every identifier the tz database holds is a zone a user may set, a link computing exactly as
/// the zone it links to; a fixed offset written as text and anything the database does not hold
/// are refused.
@Suite("User time zones")
struct UserTimeZoneIdentifierTests {
    /// Links, renamed zones, `Etc/*` and POSIX-style zones, each beside a zone with the same rules
    /// in 2026 (a canonical zone, or the fixed offset an `Etc/GMT` zone stands for; note the
    /// inverted sign of `Etc/GMT±n`).
    static let equivalents: [(given: String, same: String)] = [
        ("US/Eastern", "America/New_York"), ("US/Pacific", "America/Los_Angeles"), ("Asia/Calcutta", "Asia/Kolkata"),
        ("Asia/Kolkata", "Asia/Calcutta"), ("Asia/Saigon", "Asia/Ho_Chi_Minh"), ("Europe/Kiev", "Europe/Kyiv"),
        ("Cuba", "America/Havana"), ("NZ-CHAT", "Pacific/Chatham"), ("Etc/UTC", "UTC"), ("UTC", "+00:00"),
        ("Etc/GMT-14", "+14:00"), ("Etc/GMT+12", "-12:00"), ("CET", "Europe/Berlin"), ("EST5EDT", "America/New_York"),
        ("GMT+0", "UTC"),
    ]

    /// Instants around 2026's changes of daylight saving time in both hemispheres, and plain days.
    static let instants: [Date] = [
        "2026-01-15T12:00:00Z", "2026-03-08T07:30:00Z", "2026-03-29T01:30:00Z", "2026-04-05T14:00:00Z",
        "2026-07-01T23:59:00Z", "2026-09-27T13:00:00Z", "2026-10-25T00:30:00Z", "2026-11-01T06:30:00Z",
    ].map { try! Date($0, strategy: .iso8601) }

    @Test(arguments: equivalents)
    func aDatabaseIdentifierIsAcceptedAndComputesAsItsEquivalent(_ pair: (given: String, same: String)) throws {
        let given = try #require(UserTimeZone.zone(named: pair.given), "\(pair.given) is in the tz database")
        #expect(given.identifier == pair.given || pair.given == "UTC" || pair.given == "GMT+0", "kept as given")
        let reference = try #require(Self.zone(pair.same))
        let user = LocalCalendar(timeZone: given), expected = LocalCalendar(timeZone: reference)
        for instant in Self.instants {
            #expect(user.startOfDay(for: instant) == expected.startOfDay(for: instant), "\(pair.given) local midnight before \(instant)")
            #expect(user.dayKey(for: instant) == expected.dayKey(for: instant))
            #expect(user.hour(of: instant) == expected.hour(of: instant))
        }
    }

    @Test(arguments: ["Mars/Olympus_Mons", "", "europe/paris", "Europe/Paris ", "../../etc/localtime", "GMT+5", "UTC+3", "GMT+0500", "GMT-1130", "GMT+25"])
    func anythingElseIsRefused(_ identifier: String) {
        #expect(UserTimeZone.zone(named: identifier) == nil)
    }

    /// A reference zone: an identifier, or "±hh:mm" for a fixed offset.
    private static func zone(_ reference: String) -> TimeZone? {
        if reference.first == "+" || reference.first == "-" {
            let sign = reference.first == "-" ? -1 : 1
            let parts = reference.dropFirst().split(separator: ":").compactMap { Int($0) }
            return TimeZone(secondsFromGMT: sign * (parts[0] * 3_600 + parts[1] * 60))
        }
        return TimeZone(identifier: reference)
    }
}
