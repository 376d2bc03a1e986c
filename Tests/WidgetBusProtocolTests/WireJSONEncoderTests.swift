import Foundation
import Testing
import WidgetDomain
@testable import WidgetBusProtocol

/// The wire encoder must write exactly what Foundation's `JSONEncoder` wrote before it (sorted
/// keys, unescaped slashes, ISO-8601 millisecond dates through `ISO8601FormatStyle`): every test
/// here encodes with both and compares bytes.
@Suite("WireJSONEncoder writes JSONEncoder's bytes")
struct WireJSONEncoderTests {
    /// The encoding the wire used before ``WireJSONEncoder``: the reference.
    static func foundationEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(date.addingTimeInterval(0.0005).formatted(style))
        }
        return encoder
    }

    func expectSameBytes<Value: Encodable>(_ value: Value, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let expected = try Self.foundationEncoder().encode(value)
        let actual = try WireCodec().encode(value)
        #expect(
            String(decoding: actual, as: UTF8.self) == String(decoding: expected, as: UTF8.self),
            sourceLocation: sourceLocation)
    }

    // MARK: - Shapes

    struct Unsorted: Codable {
        var zulu: Int
        var alpha: String?
        var mike: [String: Int]
        var bravo: [Unsorted]
        var when: Date
        var ratio: Double
    }

    /// Fields of another type merged into this one's object, a later write of a key winning.
    struct Flattened: Encodable {
        var inner: Unsorted
        var extra: String

        enum Keys: String, CodingKey { case extra, zulu, aardvark }

        func encode(to encoder: any Encoder) throws {
            try inner.encode(to: encoder)
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(extra, forKey: .extra)
            try container.encode(99, forKey: .zulu)
            try container.encodeNil(forKey: .aardvark)
        }
    }

    /// Nested containers and super encoders, written out of order with the parent's own keys.
    struct Nested: Encodable {
        enum Keys: String, CodingKey { case b, a, list, sup, c }
        enum Inner: String, CodingKey { case y, x }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            var inner = container.nestedContainer(keyedBy: Inner.self, forKey: .b)
            var list = container.nestedUnkeyedContainer(forKey: .list)
            try container.encode("first", forKey: .c)
            try inner.encode(1, forKey: .y)
            try list.encode("one")
            var listed = list.nestedContainer(keyedBy: Inner.self)
            try list.encode("three")
            try listed.encode(true, forKey: .x)
            try inner.encode(2.5, forKey: .x)
            try container.encode([1, 2], forKey: .a)
            try "super".encode(to: container.superEncoder(forKey: .sup))
            _ = container.superEncoder()
        }
    }

    enum Color: String, Codable, CodingKeyRepresentable { case red, green }

    struct Scalars: Encodable {
        var int8: Int8 = -128, int16: Int16 = .max, int32: Int32 = .min, int64: Int64 = .min
        var uint: UInt = .max, uint8: UInt8 = 255, uint16: UInt16 = 0, uint32: UInt32 = .max, uint64: UInt64 = .max
        var float: Float = 0.1, negative: Double = -0.0, tiny: Double = 1e-7, huge: Double = 1.7976931348623157e308
        var whole: Double = 2, big: Double = 1e16, flags: [Bool] = [true, false], nothing: Int? = nil
        var optionals: [Int?] = [1, nil, 3], empty: [String] = [], emptyObject: [String: Int] = [:]
        var colors: [Color: Int] = [.red: 1, .green: 2], byInt: [Int: String] = [10: "ten", 2: "two"]
        var nestedArrays: [[Int]] = [[], [1], [2, 3]]
    }

    struct EncodesNothing: Encodable {
        func encode(to encoder: any Encoder) throws {}
    }

    @Test func unsortedKeysNestedValuesAndDates() throws {
        let leaf = Unsorted(zulu: 1, alpha: nil, mike: [:], bravo: [], when: Date(timeIntervalSince1970: 0), ratio: 0.5)
        let value = Unsorted(
            zulu: -3, alpha: "a/b", mike: ["z": 1, "b": 2, "B": 3, "m": 4, "é": 5, "a b": 6, "": 7],
            bravo: [leaf, leaf], when: Date(timeIntervalSince1970: 1_795_339_800.1237), ratio: 1234.5)
        try expectSameBytes(value)
        try expectSameBytes([value])
        try expectSameBytes(["k": value])
    }

    @Test func fieldsMergedIntoOneObjectAndRewrittenKeys() throws {
        let inner = Unsorted(zulu: 1, alpha: "x", mike: ["q": 1], bravo: [], when: Date(timeIntervalSince1970: 5), ratio: 2)
        try expectSameBytes(Flattened(inner: inner, extra: "e"))
    }

    @Test func nestedContainersAndSuperEncoders() throws {
        try expectSameBytes(Nested())
        try expectSameBytes([Nested(), Nested()])
    }

    @Test func everyScalarType() throws {
        try expectSameBytes(Scalars())
    }

    @Test func topLevelScalarsAndEmptyValues() throws {
        try expectSameBytes("text")
        try expectSameBytes(42)
        try expectSameBytes(Date(timeIntervalSince1970: 1))
        try expectSameBytes([EncodesNothing()])
        try expectSameBytes(["a": EncodesNothing()])
        #expect(throws: EncodingError.self) { try WireCodec().encode(EncodesNothing()) }
    }

    @Test func stringsNeedingEscapes() throws {
        let controls = String(decoding: (0..<0x20).map { UInt8($0) }, as: UTF8.self)
        try expectSameBytes([
            "quote \" backslash \\ slash / newline \n tab \t return \r", controls, "\u{7F}", "café", "😌🙂😐😣😫",
            "e\u{301}", "\u{2028}\u{2029}", "",
        ])
        try expectSameBytes(["key \"quoted\"\n": 1, "\u{1}": 2])
    }

    @Test func nonFiniteNumbersAreRefused() {
        #expect(throws: EncodingError.self) { try WireCodec().encode([Double.nan]) }
        #expect(throws: EncodingError.self) { try WireCodec().encode(["x": Double.infinity]) }
        #expect(throws: EncodingError.self) { try WireCodec().encode([Float.infinity]) }
    }

    @Test func randomNumbers() throws {
        var random = SeededRandom(seed: 7)
        var doubles: [Double] = []
        var floats: [Float] = []
        var integers: [Int64] = []
        for _ in 0..<5_000 {
            doubles.append(Double(bitPattern: random.next()))
            doubles.append(Double(Int64(bitPattern: random.next()) % 1_000_000) / 1000)
            floats.append(Float(bitPattern: UInt32(truncatingIfNeeded: random.next())))
            integers.append(Int64(bitPattern: random.next()) >> (random.next() % 64))
        }
        try expectSameBytes(doubles.filter(\.isFinite))
        try expectSameBytes(floats.filter(\.isFinite))
        try expectSameBytes(integers)
    }

    @Test func randomStrings() throws {
        var random = SeededRandom(seed: 11)
        let alphabet: [Character] = ["a", "Z", "0", "\"", "\\", "/", "\n", "\u{0}", "\u{1F}", " ", "é", "€", "😣", "\u{301}"]
        let strings = (0..<2_000).map { _ in
            String((0..<Int(random.next() % 12)).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] })
        }
        try expectSameBytes(strings)
        try expectSameBytes(Dictionary(strings.map { ($0, 1) }, uniquingKeysWith: +))
    }

    // MARK: - Dates

    @Test func datesFormatAsISO8601FormatStyleDoes() {
        let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        var random = SeededRandom(seed: 3)
        var mismatches: [String] = []
        for index in 0..<50_000 {
            let seconds: Double
            switch index % 4 {
            case 0: seconds = Double(Int64(bitPattern: random.next()) % 10_000_000_000) + Double(random.next() % 1_000_000) / 1_000_000
            case 1: seconds = Double(Int64(bitPattern: random.next()) % 4_000_000_000) / 1000  // whole milliseconds
            case 2: seconds = Double(Int64(bitPattern: random.next()) % 4_000_000_000_000) / 1000 + 0.0005  // halfway
            default: seconds = Double(Int64(bitPattern: random.next()) % 60_000_000_000)  // years 1 to 3870
            }
            let date = Date(timeIntervalSince1970: seconds)
            let expected = date.addingTimeInterval(0.0005).formatted(style)
            if WireDate.format(date) != expected { mismatches.append("\(seconds): \(WireDate.format(date)) != \(expected)") }
        }
        #expect(mismatches.isEmpty, "\(mismatches.count): \(mismatches.prefix(5))")
    }

    @Test func datesParseAsISO8601FormatStyleDoes() {
        let withFraction = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        let withoutFraction = Date.ISO8601FormatStyle()
        var random = SeededRandom(seed: 5)
        var mismatches: [String] = []
        for index in 0..<50_000 {
            let date = Date(timeIntervalSince1970: Double(Int64(bitPattern: random.next()) % 20_000_000_000_000) / 1000)
            var text = WireDate.format(date)
            if index % 3 == 0 { text = String(text.prefix(19)) + "Z" }
            let expected = (try? withFraction.parse(text)) ?? (try? withoutFraction.parse(text))
            if WireDate.parse(text) != expected { mismatches.append(text) }
        }
        #expect(mismatches.isEmpty, "\(mismatches.count): \(mismatches.prefix(5))")
    }

    @Test("texts the hand-written parser leaves to the style", arguments: [
        "2026-11-22T09:30:00.5Z", "2026-11-22T09:30:00.123456Z", "2026-11-22T09:30:00+01:00", "2026-02-29T00:00:00Z",
        "2024-02-29T00:00:00Z", "0000-01-01T00:00:00Z", "2026-11-22T24:00:00Z", "2026-11-22T09:60:00Z",
    ])
    func unusualTexts(text: String) {
        let expected = (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text))
            ?? (try? Date.ISO8601FormatStyle().parse(text))
        #expect(WireDate.parse(text) == expected)
    }

    // MARK: - Pre-encoded JSON

    struct Carrier<Payload: Encodable>: Encodable {
        var payload: Payload
        var name: String
    }

    @Test func encodedJSONIsSplicedVerbatim() throws {
        let codec = WireCodec()
        let payload = Unsorted(zulu: 1, alpha: "x", mike: ["q": 1], bravo: [], when: Date(timeIntervalSince1970: 5), ratio: 2)
        let once = try codec.encodeOnce(payload)
        #expect(try codec.encode(Carrier(payload: once, name: "n")) == codec.encode(Carrier(payload: payload, name: "n")))
        #expect(try codec.encode([once, once]) == codec.encode([payload, payload]))
        #expect(try codec.encode(once) == codec.encode(payload))
    }

    @Test func onlyTheWireCodecSplices() {
        #expect(throws: EncodingError.self) { try JSONEncoder().encode([EncodedJSON(bytes: Array("1".utf8))]) }
    }
}
