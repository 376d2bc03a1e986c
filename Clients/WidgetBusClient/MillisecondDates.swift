import Foundation
import OpenAPIRuntime

/// Dates as the gateway writes them (docs/PROTOCOL.md): ISO 8601 UTC with milliseconds,
/// `2026-11-22T09:30:00.250Z`; read with or without the fraction.
///
/// One reading for the answers and the cache, exact to the millisecond both ways: a timeline read
/// back from the cache equals the one received. (Foundation's formatters parse `.817` into a date
/// that other parsers do not, and truncate when formatting, so `.002` read as 0.00199… comes
/// back `.001`.)
struct MillisecondDates: DateTranscoder {
    func encode(_ date: Date) throws -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let (seconds, millisecond) = (milliseconds.floorDivided(by: 1000), milliseconds.floorModulo(1000))
        let whole = Date.ISO8601FormatStyle().format(Date(timeIntervalSince1970: Double(seconds)))  // …:ssZ
        return whole.dropLast() + "." + String(String(millisecond + 1000).dropFirst()) + "Z"
    }

    func decode(_ text: String) throws -> Date {
        guard let dot = text.firstIndex(of: ".") else { return try Date.ISO8601FormatStyle().parse(text) }
        let digits = text[text.index(after: dot)...].prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, text[digits.endIndex...] == "Z" else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "not an ISO 8601 UTC date: \(text)"))
        }
        let seconds = try Date.ISO8601FormatStyle().parse(text[..<dot] + "Z").timeIntervalSince1970
        let millisecond = Int((digits + "00").prefix(3))!
        return Date(timeIntervalSince1970: (seconds * 1000 + Double(millisecond)) / 1000)
    }
}

extension Int64 {
    fileprivate func floorDivided(by divisor: Int64) -> Int64 { (self - floorModulo(divisor)) / divisor }
    fileprivate func floorModulo(_ divisor: Int64) -> Int64 { ((self % divisor) + divisor) % divisor }
}
