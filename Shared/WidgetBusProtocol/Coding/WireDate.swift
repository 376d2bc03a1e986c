import Foundation

/// ISO-8601 UTC dates as the wire writes them: `2026-11-22T09:30:00.123Z`, rounded to the
/// nearest millisecond so that a date read from the wire is written back byte-identical; read
/// with or without the fraction.
///
/// Every date on the wire passes through here, so the common shapes — Gregorian years 1583 to
/// 9999, three fraction digits or none — are formatted and parsed by hand (civil-from-days
/// arithmetic, no calendar). They give exactly the text and the `Date` that
/// `Date.ISO8601FormatStyle` gives (the tests compare them over many dates): the millisecond is
/// truncated from the nanosecond of the interval since the reference date, as the style takes
/// it. Anything else goes to that style, which also writes years before the Gregorian reform in
/// the Julian calendar.
public enum WireDate {
    private static let withFraction = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    private static let withoutFraction = Date.ISO8601FormatStyle()
    private static let secondsPerDay: Int64 = 86_400
    /// 1583-01-01T00:00:00Z and 10000-01-01T00:00:00Z, in seconds since 1970: the span the
    /// hand-written paths cover.
    private static let firstSecond: Int64 = -12_212_553_600
    private static let endSecond: Int64 = 253_402_300_800
    private static let secondsFrom1970ToReferenceDate: Int64 = 978_307_200

    public static func format(_ date: Date) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        append(date, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the date's wire text (without quotes) to `bytes`.
    public static func append(_ date: Date, to bytes: inout [UInt8]) {
        // The same instant the style is given: the date moved half a millisecond later, then
        // truncated to its millisecond.
        let shifted = date.addingTimeInterval(0.0005).timeIntervalSinceReferenceDate
        let wholeSeconds = shifted.rounded(.down)
        let seconds = Int64(exactly: wholeSeconds).map { $0 + secondsFrom1970ToReferenceDate } ?? firstSecond - 1
        guard seconds >= firstSecond, seconds < endSecond else {
            bytes.append(contentsOf: date.addingTimeInterval(0.0005).formatted(withFraction).utf8)
            return
        }
        let milliseconds = min(999, Int((shifted - wholeSeconds) * 1_000_000_000) / 1_000_000)
        let (days, secondOfDay) = seconds.floorDivided(by: secondsPerDay)
        let (year, month, day) = civilDate(fromDaysSince1970: days)
        appendDigits(year, count: 4, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        appendDigits(month, count: 2, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        appendDigits(day, count: 2, to: &bytes)
        bytes.append(UInt8(ascii: "T"))
        appendDigits(Int(secondOfDay / 3600), count: 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        appendDigits(Int(secondOfDay % 3600 / 60), count: 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        appendDigits(Int(secondOfDay % 60), count: 2, to: &bytes)
        bytes.append(UInt8(ascii: "."))
        appendDigits(milliseconds, count: 3, to: &bytes)
        bytes.append(UInt8(ascii: "Z"))
    }

    public static func parse(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { parseCommonShape($0) } ?? (try? withFraction.parse(text)) ?? (try? withoutFraction.parse(text))
    }

    /// Parses the date in `text`, UTF-8 bytes; nil when it is not one.
    static func parse(utf8 text: UnsafeBufferPointer<UInt8>) -> Date? {
        parseCommonShape(text) ?? parse(String(decoding: text, as: UTF8.self))
    }

    /// The hand-written parse of `YYYY-MM-DDTHH:MM:SSZ` and `YYYY-MM-DDTHH:MM:SS.fffZ`; nil for
    /// any other text (which may still be a date the style reads).
    private static func parseCommonShape(_ text: UnsafeBufferPointer<UInt8>) -> Date? {
        guard text.count == 20 || text.count == 24,
            text[4] == UInt8(ascii: "-"), text[7] == UInt8(ascii: "-"), text[10] == UInt8(ascii: "T"),
            text[13] == UInt8(ascii: ":"), text[16] == UInt8(ascii: ":"), text[text.count - 1] == UInt8(ascii: "Z"),
            let year = number(text, 0, 4), let month = number(text, 5, 2), let day = number(text, 8, 2),
            let hour = number(text, 11, 2), let minute = number(text, 14, 2), let second = number(text, 17, 2),
            year >= 1583, (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
            hour < 24, minute < 60, second < 60
        else { return nil }
        var milliseconds = 0
        if text.count == 24 {
            guard text[19] == UInt8(ascii: "."), let fraction = number(text, 20, 3) else { return nil }
            milliseconds = fraction
        }
        let days = daysSince1970(year: year, month: month, day: day)
        let seconds = days * secondsPerDay + Int64(hour * 3600 + minute * 60 + second)
        // As the style builds it: whole seconds since the reference date, plus the fraction.
        let sinceReference = Double(seconds - secondsFrom1970ToReferenceDate) + Double(milliseconds) / 1000
        return Date(timeIntervalSinceReferenceDate: sinceReference)
    }

    private static func number(_ text: UnsafeBufferPointer<UInt8>, _ start: Int, _ count: Int) -> Int? {
        var value = 0
        for index in start..<(start + count) {
            let digit = Int(text[index]) - 48
            guard (0...9).contains(digit) else { return nil }
            value = value * 10 + digit
        }
        return value
    }

    private static func appendDigits(_ value: Int, count: Int, to bytes: inout [UInt8]) {
        var divisor = 1
        for _ in 1..<count { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            bytes.append(UInt8(48 + rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
    private static func daysSince1970(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = Int64((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1)
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date of a day counted from 1970-01-01 (`civil_from_days`).
    private static func civilDate(fromDaysSince1970 days: Int64) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = Int(dayOfYear - (153 * shiftedMonth + 2) / 5 + 1)
        let month = Int(shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9)
        let year = Int(yearOfEra + era * 400) + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }
}

extension Int64 {
    /// Quotient rounded toward negative infinity, and the non-negative remainder.
    fileprivate func floorDivided(by divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let (quotient, remainder) = quotientAndRemainder(dividingBy: divisor)
        return remainder < 0 ? (quotient - 1, remainder + divisor) : (quotient, remainder)
    }
}
