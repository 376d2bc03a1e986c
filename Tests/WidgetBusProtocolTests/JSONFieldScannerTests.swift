import Foundation
import Testing

@testable import WidgetBusProtocol

struct JSONFieldScannerTests {
    let event = Data(
        #"{"body":{"causedBy":"x\"}{","record":{"state":{"a":[1,{"b":"}"}]},"sequence":9},"sequence":42},"id":"e1","type":"StateChanged","version":1}"#
            .utf8)

    @Test func readsTopLevelAndNestedFieldsSkippingTheRest() {
        let scanner = JSONFieldScanner(event)
        #expect(scanner.string("type") == "StateChanged")
        #expect(scanner.string("id") == "e1")
        #expect(scanner.unsignedInteger("version") == 1)
        #expect(scanner.object("body")?.unsignedInteger("sequence") == 42)
        #expect(scanner.object("body")?.object("record")?.unsignedInteger("sequence") == 9)
    }

    @Test func absentAndWrongTypeValuesAreNil() {
        let scanner = JSONFieldScanner(event)
        #expect(scanner.string("missing") == nil)
        #expect(scanner.string("version") == nil)
        #expect(scanner.unsignedInteger("type") == nil)
        #expect(scanner.object("type") == nil)
        #expect(scanner.date("type") == nil)
        #expect(scanner.objects(inArray: "body") == nil)
    }

    @Test func stringsWithEscapesAreDecoded() {
        #expect(JSONFieldScanner(event).object("body")?.string("causedBy") == #"x"}{"#)
        #expect(JSONFieldScanner(Data(#"{"u":"café\\/"}"#.utf8)).string("u") == #"café\/"#)
    }

    @Test func valuesAreSplicedAsEncodedAndDatesReadInTheWireFormat() throws {
        let scanner = JSONFieldScanner(Data(#"{"at":"2026-11-22T09:30:00.123Z","entries":[{"a":"]"}, {"b":[1,2]}],"n":7}"#.utf8))
        #expect(scanner.encoded("entries") == EncodedJSON(bytes: Array(#"[{"a":"]"}, {"b":[1,2]}]"#.utf8)))
        #expect(scanner.encoded("at") == EncodedJSON(bytes: Array(#""2026-11-22T09:30:00.123Z""#.utf8)))
        #expect(scanner.date("at") == WireDate.parse("2026-11-22T09:30:00.123Z"))
        let elements = try #require(scanner.objects(inArray: "entries"))
        #expect(elements.count == 2)
        #expect(elements[0].string("a") == "]" && elements[1].encoded("b") == EncodedJSON(bytes: Array("[1,2]".utf8)))
        #expect(JSONFieldScanner(Data(#"{"e":[ ]}"#.utf8)).objects(inArray: "e")?.isEmpty == true)
        #expect(JSONFieldScanner(Data(#"{"e":[{"a":1},2]}"#.utf8)).objects(inArray: "e") == nil, "not an array of objects")
    }

    @Test func toleratesWhitespaceAndRefusesWhatIsNotAnObject() {
        let spaced = JSONFieldScanner(Data(#" { "a" : 1 , "b" : { "c" : "d" } } "#.utf8))
        #expect(spaced.unsignedInteger("a") == 1)
        #expect(spaced.object("b")?.string("c") == "d")
        for text in ["", "[1]", "{", #"{"a":"#, "nonsense", #"{"a":99999999999999999999}"#, #"{"b":"unterminated}"#] {
            #expect(JSONFieldScanner(Data(text.utf8)).unsignedInteger("a") == nil, "\(text)")
        }
        // It does not validate what follows the field it reads (documented): decode fully what is kept.
        #expect(JSONFieldScanner(Data(#"{"a":1"#.utf8)).unsignedInteger("a") == 1)
        #expect(JSONFieldScanner(Data(#"{"a":1,"b":"#.utf8)).unsignedInteger("a") == 1, "the fields before a cut-off one are read")
        #expect(JSONFieldScanner(Data(#"{"a":1,"a":2}"#.utf8)).unsignedInteger("a") == 1, "a repeated key: the first one")
    }
}
