import Foundation
import Testing
import WidgetDomain
@testable import WidgetBusProtocol

/// The wire decoder reads what Foundation's `JSONDecoder` read — the same values, and errors of
/// the same kinds at the same coding paths, which the protocol's error codes are made from — but
/// only from RFC 8259 JSON.
@Suite("WireJSONDecoder reads what JSONDecoder read, from strict JSON")
struct WireJSONDecoderTests {
    /// The decoding the wire used before ``WireJSONDecoder``: the reference.
    static func foundationDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = WireDate.parse(text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "expected an ISO-8601 date, got \(text)")
            }
            return date
        }
        return decoder
    }

    static func wire<Value: Decodable>(_ type: Value.Type, _ json: String) throws -> Value {
        try WireJSONDecoder().decode(type, from: Data(json.utf8))
    }

    struct Shapes: Codable, Equatable {
        var text: String
        var count: Int
        var small: Int8
        var big: UInt64
        var ratio: Double
        var single: Float
        var flag: Bool
        var when: Date
        var maybe: String?
        var list: [Double]
        var map: [String: Int]
        var nested: [Shapes]
        var optionalList: [Int?]
    }

    static let shapes = [
        #"{"text":"a","count":-3,"small":-128,"big":18446744073709551615,"ratio":-0,"single":1.5,"flag":true,"when":"2026-11-22T09:30:00.123Z","list":[0.1,1e-07,-12.5,2,123456789.12345679,1e+21,-0.0],"map":{"b":2,"a":1},"nested":[],"optionalList":[1,null,3]}"#,
        #"{ "nested" : [ {"text":"\u00e9\ud83d\ude00 \"q\" \\ \/ \b\f\n\r\t","count":7.0,"small":1e2,"big":0,"ratio":1E3,"single":-0.25,"flag":false,"when":"2026-11-22T09:30:00Z","maybe":null,"list":[],"map":{},"nested":[],"optionalList":[]} ], "text":"","count":0,"small":0,"big":1,"ratio":5e-324,"single":3.4028234663852886e38,"flag":true,"when":"1583-01-01T00:00:00.000Z","maybe":"x","list":[1.7976931348623157e308],"map":{"x":1,"x":2},"optionalList":[null] } "#,
    ]

    @Test("the same values as JSONDecoder", arguments: shapes)
    func sameValues(json: String) throws {
        let expected = try Self.foundationDecoder().decode(Shapes.self, from: Data(json.utf8))
        let actual = try Self.wire(Shapes.self, json)
        #expect(actual == expected)
        #expect(actual.ratio.sign == expected.ratio.sign)
        #expect(actual.list.map(\.bitPattern) == expected.list.map(\.bitPattern))
    }

    @Test func aRepeatedKeyKeepsItsFirstValue() throws {
        struct One: Decodable { var a: Int }
        #expect(try Self.wire(One.self, #"{"a":1,"a":2}"#).a == 1)
        #expect(try Self.wire([String: Int].self, #"{"a":1,"b":2}"#) == ["a": 1, "b": 2])
    }

    @Test("top-level scalars", arguments: [#""x""#, " \"x\" "])
    func topLevelString(json: String) throws {
        #expect(try Self.wire(String.self, json) == "x")
    }

    @Test("not RFC 8259 JSON is refused as a whole, whatever field it is in", arguments: [
        "", " ", "{", "}", "{\"a\":1,}", "[1,]", "{\"a\":1} x", "{\"a\":1}{}", "{\"a\" 1}", "{a:1}", "{'a':1}",
        "{\"a\":01}", "{\"a\":-}", "{\"a\":1.}", "{\"a\":.5}", "{\"a\":1e}", "{\"a\":+1}", "{\"a\":NaN}", "{\"a\":Infinity}",
        "{\"a\":tru}", "{\"a\":nul}", "{\"z\":\"\u{01}\"}", "{\"z\":\"\\x\"}", "{\"z\":\"\\u12\"}", "{\"z\":\"\\ud800\"}",
        "{\"z\":\"\\udc00\"}", "{\"z\":\"\\ud800\\u0041\"}", "{\"z\":\"unterminated}",
    ])
    func malformed(json: String) {
        expectMalformed(Data(json.utf8))
    }

    @Test("invalid UTF-8 is refused, even in a string no one reads", arguments: [
        [0xC3], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82], [0xFF], [0x80],
    ] as [[UInt8]])
    func invalidUTF8(bytes: [UInt8]) {
        expectMalformed(Data(#"{"a":1,"z":""#.utf8) + bytes + Data(#""}"#.utf8))
    }

    func expectMalformed(_ data: Data, sourceLocation: SourceLocation = #_sourceLocation) {
        struct One: Decodable { var a: Int }
        do {
            _ = try WireJSONDecoder().decode(One.self, from: data)
            Issue.record("accepted \(String(decoding: data, as: UTF8.self).debugDescription)", sourceLocation: sourceLocation)
        } catch DecodingError.dataCorrupted(let context) {
            #expect(context.codingPath.isEmpty, sourceLocation: sourceLocation)
        } catch {
            Issue.record("\(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func nestingIsLimitedTo512() throws {
        func nested(_ depth: Int) -> Data { Data((String(repeating: "[", count: depth) + String(repeating: "]", count: depth)).utf8) }
        #expect(throws: Never.self) { try WireJSONDecoder().decode(JSONValue.self, from: nested(JSONTape.maximumDepth)) }
        expectMalformed(nested(JSONTape.maximumDepth + 1))
    }

    // MARK: - Errors name the field, as JSONDecoder's did

    struct Request: Decodable {
        struct Body: Decodable { var level: Int }
        var body: Body
        var tags: [String]?
    }

    static func error(_ json: String) -> DecodingError? {
        do {
            _ = try Self.wire(Request.self, json)
            return nil
        } catch {
            return error as? DecodingError
        }
    }

    static func path(_ context: DecodingError.Context) -> String { context.codingPath.map(\.stringValue).joined(separator: ".") }

    @Test func aMissingKeyIsKeyNotFoundWithItsPath() {
        guard case .keyNotFound(let key, let context)? = Self.error(#"{"body":{}}"#) else { Issue.record("no keyNotFound"); return }
        #expect(key.stringValue == "level")
        #expect(Self.path(context) == "body")
    }

    @Test func nullIsValueNotFound() {
        guard case .valueNotFound(_, let context)? = Self.error(#"{"body":{"level":null}}"#) else { Issue.record("no valueNotFound"); return }
        #expect(Self.path(context) == "body.level")
    }

    @Test func aWrongTypeIsTypeMismatch() {
        guard case .typeMismatch(let type, let context)? = Self.error(#"{"body":{"level":"high"}}"#) else { Issue.record("no typeMismatch"); return }
        #expect(ObjectIdentifier(type) == ObjectIdentifier(Int.self))
        #expect(Self.path(context) == "body.level")
        guard case .typeMismatch(_, let element)? = Self.error(#"{"body":{"level":1},"tags":["a",2]}"#) else { Issue.record("no typeMismatch"); return }
        #expect(Self.path(element) == "tags.Index 1")
        guard case .typeMismatch(_, let root)? = Self.error("[1]") else { Issue.record("no typeMismatch"); return }
        #expect(root.codingPath.isEmpty)
    }

    @Test("a number that is no whole number in range is corrupt data at its field", arguments: [
        "7.5", "1e20", "-9223372036854775809", "1e-1", "1e-400", "-1e-400", "0.0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001",
    ])
    func notAnInteger(number: String) {
        guard case .dataCorrupted(let context)? = Self.error(#"{"body":{"level":\#(number)}}"#) else { Issue.record("no dataCorrupted"); return }
        #expect(Self.path(context) == "body.level")
    }

    @Test("integers written with a fraction or exponent are exact or refused", arguments: [
        ("7.0", 7 as Int64?), ("-7e0", -7), ("9007199254740991.0", 9_007_199_254_740_991), ("9007199254740993.0", nil),
        ("9.223372036854775807e18", nil), ("9223372036854775807", Int64.max),
    ] as [(String, Int64?)])
    func largeIntegers(number: String, expected: Int64?) {
        struct N: Decodable { var n: Int64 }
        #expect((try? Self.wire(N.self, #"{"n":\#(number)}"#).n) == expected)
    }

    @Test func floatingPointIsCorrectlyRoundedAndNeverSilentlyZero() throws {
        struct F: Decodable { var f: Float?; var d: Double? }
        #expect(try Self.wire(F.self, #"{"f":3.4028235e+38}"#).f == .greatestFiniteMagnitude)
        #expect(try Self.wire(F.self, #"{"f":1.0000000596046447755}"#).f == Float("1.0000000596046447755"))
        #expect(try Self.wire(F.self, #"{"f":0e5,"d":-0.000}"#).d?.sign == .minus)
        for refused in [#"{"d":1e-400}"#, #"{"f":1e-50}"#, #"{"f":1e39}"#, #"{"d":1e309}"#] {
            #expect(throws: DecodingError.self, "\(refused)") { try Self.wire(F.self, refused) }
        }
    }

    @Test func allKeysNamesARepeatedKeyOnce() throws {
        struct Keys: Decodable {
            var keys: [String]
            struct AnyKey: CodingKey {
                var stringValue: String
                var intValue: Int? { nil }
                init(stringValue: String) { self.stringValue = stringValue }
                init?(intValue: Int) { nil }
            }
            init(from decoder: any Decoder) throws { keys = try decoder.container(keyedBy: AnyKey.self).allKeys.map(\.stringValue) }
        }
        #expect(try Self.wire(Keys.self, #"{"a":1,"b":2,"a":3}"#).keys == ["a", "b"])
    }

    @Test func aBadDateIsCorruptDataAtItsField() {
        struct Dated: Decodable { var when: Date }
        #expect {
            try Self.wire(Dated.self, #"{"when":"yesterday"}"#)
        } throws: { error in
            guard case .dataCorrupted(let context) = error as? DecodingError else { return false }
            return Self.path(context) == "when" && context.debugDescription.contains("yesterday")
        }
    }

    @Test func anAbsentKeysSuperDecoderReadsNull() throws {
        struct Outer: Decodable {
            var inner: String?
            enum CodingKeys: String, CodingKey { case inner }
            init(from decoder: any Decoder) throws {
                let sub = try decoder.container(keyedBy: CodingKeys.self).superDecoder(forKey: .inner)
                inner = try sub.singleValueContainer().decodeNil() ? nil : try sub.singleValueContainer().decode(String.self)
            }
        }
        #expect(try Self.wire(Outer.self, "{}").inner == nil)
        #expect(try Self.wire(Outer.self, #"{"inner":"x"}"#).inner == "x")
    }
}
