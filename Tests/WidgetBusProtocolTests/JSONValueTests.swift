import Foundation
import Testing
@testable import WidgetBusProtocol

@Suite("JSONValue")
struct JSONValueTests {
    let codec = WireCodec()

    @Test("values round-trip byte-identical", arguments: [
        #"null"#, #"true"#, #"false"#, #"0"#, #"7"#, #"-3"#, #"2.5"#, #""text""#, #"[]"#, #"{}"#,
        #"[1,"a",null,true,{"k":[2]}]"#,
        #"{"a":{"b":[1,2,{"c":null}]},"level":7,"name":"zoë"}"#,
    ])
    func roundTrip(json: String) throws {
        let value = try codec.decode(JSONValue.self, from: Data(json.utf8))
        #expect(text(try codec.encode(value)) == json)
    }

    @Test func decodesEachKind() throws {
        let value = try codec.decode(JSONValue.self, from: Data(#"{"b":true,"n":1,"s":"1","x":null,"a":[false]}"#.utf8))
        #expect(value == .object(["b": .bool(true), "n": .number(1), "s": .string("1"), "x": .null, "a": .array([.bool(false)])]))
    }

    @Test func integralNumbersEncodeWithoutFraction() throws {
        #expect(text(try codec.encode(JSONValue.number(7))) == "7")
        #expect(text(try codec.encode(JSONValue.number(-1e14))) == "-100000000000000")
        #expect(text(try codec.encode(JSONValue.number(0.5))) == "0.5")
    }

    @Test func subscriptReadsObjectsOnly() {
        let value = JSONValue.object(["level": .number(7)])
        #expect(value["level"] == .number(7))
        #expect(value["missing"] == nil)
        #expect(JSONValue.array([.number(7)])["level"] == nil)
    }
}
