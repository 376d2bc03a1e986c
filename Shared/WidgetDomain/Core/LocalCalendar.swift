import Foundation

/// A user's local day, `yyyy-MM-dd`: the identity of "today" that survives time-zone changes
/// and DST.
public struct DayKey: RawRepresentable, Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public let year: Int
    public let month: Int
    public let day: Int

    /// Accepts only real calendar days written `yyyy-MM-dd`.
    public init?(rawValue: String) {
        let parts = rawValue.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
            let date = DayKey.utc.date(from: DateComponents(year: year, month: month, day: day)),
            DayKey.utc.component(.day, from: date) == day, DayKey.utc.component(.month, from: date) == month
        else { return nil }
        self.init(year: year, month: month, day: day)
    }

    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
        rawValue = Self.zeroPadded(year, width: 4) + "-" + Self.zeroPadded(month, width: 2) + "-" + Self.zeroPadded(day, width: 2)
    }

    /// `value` in decimal, zero-padded to `width` characters as `%0*d` writes it (a sign counts
    /// toward the width). Written by hand because `String(format:)` goes through Foundation's
    /// format parser on every call, and timelines make day keys for every entry.
    static func zeroPadded(_ value: Int, width: Int) -> String {
        let digits = String(value.magnitude)
        let sign = value < 0 ? "-" : ""
        let padding = max(0, width - sign.count - digits.count)
        return sign + String(repeating: "0", count: padding) + digits
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let key = DayKey(rawValue: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a yyyy-MM-dd day: \(text)"))
        }
        self = key
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public static func < (lhs: DayKey, rhs: DayKey) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { rawValue }

    public var previous: DayKey { adding(days: -1) }
    public var next: DayKey { adding(days: 1) }

    /// Calendar arithmetic on days, independent of any zone.
    public func adding(days: Int) -> DayKey {
        let date = DayKey.utc.date(from: DateComponents(year: year, month: month, day: day + days))!
        let parts = DayKey.utc.dateComponents([.year, .month, .day], from: date)
        return DayKey(year: parts.year!, month: parts.month!, day: parts.day!)
    }

    private static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()
}

/// Day boundaries and hours in one user's time zone. Every "midnight", "hour of day" and
/// `dayKey` of the widgets goes through here, so DST and zone changes are handled once.
public struct LocalCalendar: Sendable {
    public let timeZone: TimeZone
    private let calendar: Calendar

    public init(timeZone: TimeZone) {
        self.timeZone = timeZone
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        self.calendar = calendar
    }

    public func dayKey(for date: Date) -> DayKey {
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return DayKey(year: parts.year!, month: parts.month!, day: parts.day!)
    }

    /// The instant the local day of `date` began (not always 00:00 where DST starts at midnight).
    public func startOfDay(for date: Date) -> Date {
        calendar.startOfDay(for: date)
    }

    /// The instant `day` begins locally.
    public func start(of day: DayKey) -> Date {
        calendar.startOfDay(for: calendar.date(from: DateComponents(year: day.year, month: day.month, day: day.day, hour: 12))!)
    }

    /// The start of the next local day after `date`: the widgets' "midnight".
    public func nextMidnight(after date: Date) -> Date {
        start(of: dayKey(for: date).next)
    }

    /// The local hour (0–23) of `date`.
    public func hour(of date: Date) -> Int {
        calendar.component(.hour, from: date)
    }

    /// The start of the local hour containing `date`.
    public func startOfHour(for date: Date) -> Date {
        calendar.dateInterval(of: .hour, for: date)!.start
    }
}
