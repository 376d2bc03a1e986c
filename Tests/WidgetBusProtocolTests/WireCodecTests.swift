import Foundation
import Testing
import WidgetDomain
@testable import WidgetBusProtocol

@Suite("WireCodec and WireDate")
struct WireCodecTests {
    struct Unsorted: Codable, Equatable {
        var zulu: Int
        var alpha: String
        var mike: [String: Int]
        var path: String
    }

    @Test func keysAreSortedAtEveryLevel() throws {
        let value = Unsorted(zulu: 1, alpha: "a", mike: ["z": 1, "b": 2, "m": 3], path: "a/b")
        #expect(text(try WireCodec().encode(value))
            == #"{"alpha":"a","mike":{"b":2,"m":3,"z":1},"path":"a/b","zulu":1}"#)
    }

    @Test func outputIsByteIdenticalAcrossCodecs() throws {
        let value = Unsorted(zulu: 1, alpha: "a", mike: Dictionary(uniqueKeysWithValues: (0..<50).map { ("k\($0)", $0) }), path: "/")
        #expect(try WireCodec().encode(value) == WireCodec().encode(value))
    }

    @Test func datesAreISO8601UTCWithMilliseconds() throws {
        #expect(WireDate.format(Wire.now) == "2026-11-22T09:30:00.000Z")
        #expect(text(try WireCodec().encode([Wire.now])) == #"["2026-11-22T09:30:00.000Z"]"#)
        #expect(WireDate.format(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000Z")
    }

    @Test("sub-millisecond dates round to the nearest millisecond", arguments: [
        (0.000_4, "2026-11-22T09:30:00.000Z"),
        (0.000_6, "2026-11-22T09:30:00.001Z"),
        (0.123_4, "2026-11-22T09:30:00.123Z"),
        (0.123_49, "2026-11-22T09:30:00.123Z"),
        (0.123_6, "2026-11-22T09:30:00.124Z"),
        (0.999_4, "2026-11-22T09:30:00.999Z"),
        (0.999_6, "2026-11-22T09:30:01.000Z"),
        (59.999_7, "2026-11-22T09:31:00.000Z"),
        (-0.000_4, "2026-11-22T09:30:00.000Z"),
        (-0.000_6, "2026-11-22T09:29:59.999Z"),
    ])
    func roundsToMilliseconds(offset: Double, expected: String) {
        #expect(WireDate.format(Wire.now.addingTimeInterval(offset)) == expected)
    }

    @Test func roundingCarriesAcrossTheYear() {
        let lastInstantOf2026 = Date(timeIntervalSince1970: 1_798_761_600 - 0.000_2)
        #expect(WireDate.format(lastInstantOf2026) == "2027-01-01T00:00:00.000Z")
    }

    static func everyMillisecond(of second: String) -> [String] {
        (0..<1000).map { "\(second).\(String(format: "%03d", $0))Z" }
    }

    @Test("a date read from the wire re-encodes byte-identical", arguments: [
        "2026-11-22T09:30:00",   // the fixture second
        "2026-11-22T23:59:59",   // day boundary
        "2038-01-19T03:14:07",   // 32-bit epoch limit
        "2099-12-31T23:59:59",   // far future, less Double precision
        "2001-01-01T00:00:00",   // Foundation's reference date (interval 0 and up)
        "1970-01-01T00:00:00",   // Unix epoch: negative reference intervals
    ])
    func decodeEncodeIsIdentical(second: String) {
        var mismatches: [String] = []
        for text in Self.everyMillisecond(of: second) {
            guard let date = WireDate.parse(text) else {
                mismatches.append("\(text) did not parse")
                continue
            }
            let again = WireDate.format(date)
            if again != text { mismatches.append("\(text) -> \(again)") }
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) of 1000: \(mismatches.prefix(5))")
    }

    @Test func decodeEncodeIsIdenticalThroughTheCodec() throws {
        let codec = WireCodec()
        let texts = (0..<1000).map { "2026-11-22T09:30:\(String(format: "%02d", $0 % 60)).\(String(format: "%03d", (7 * $0) % 1000))Z" }
        let json = Data(("[" + texts.map { "\"\($0)\"" }.joined(separator: ",") + "]").utf8)
        let dates = try codec.decode([Date].self, from: json)
        #expect(try codec.encode(dates) == json)
    }

    @Test func encodeDecodeEncodeIsStableForArbitraryDates() throws {
        var random = SeededRandom(seed: 12)
        for _ in 0..<2000 {
            let seconds = Double(random.next() % 4_000_000_000) + Double(random.next() % 1_000_000) / 1_000_000
            let first = WireDate.format(Date(timeIntervalSince1970: seconds))
            let date = try #require(WireDate.parse(first))
            #expect(WireDate.format(date) == first)
        }
    }

    @Test("dates without a fraction decode", arguments: [
        ("2026-11-22T09:30:00Z", "2026-11-22T09:30:00.000Z"),
        ("1999-12-31T23:59:59Z", "1999-12-31T23:59:59.000Z"),
    ])
    func withoutFraction(input: String, canonical: String) throws {
        let date = try #require(WireDate.parse(input))
        #expect(WireDate.format(date) == canonical)
        #expect(try WireCodec().decode([Date].self, from: Data("[\"\(input)\"]".utf8)) == [date])
    }

    @Test func fractionAndNoFractionAgree() throws {
        #expect(WireDate.parse("2026-11-22T09:30:00Z") == Wire.now)
        #expect(WireDate.parse("2026-11-22T09:30:00.000Z") == Wire.now)
    }

    @Test("malformed dates do not parse", arguments: [
        "", "yesterday", "2026-11-22", "2026-11-22 09:30:00Z", "2026-13-01T00:00:00Z", "1795339800",
    ])
    func malformed(input: String) {
        #expect(WireDate.parse(input) == nil)
        #expect(throws: DecodingError.self) {
            try WireCodec().decode([Date].self, from: Data("[\"\(input)\"]".utf8))
        }
    }

    @Test func slashesAreNotEscaped() throws {
        #expect(text(try WireCodec().encode(["tcp://127.0.0.1:5560"])) == #"["tcp://127.0.0.1:5560"]"#)
    }
}
