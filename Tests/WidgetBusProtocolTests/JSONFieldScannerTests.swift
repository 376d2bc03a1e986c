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

    @Test func absentWrongTypeAndEscapedValuesAreNil() {
        let scanner = JSONFieldScanner(event)
        #expect(scanner.string("missing") == nil)
        #expect(scanner.string("version") == nil)
        #expect(scanner.unsignedInteger("type") == nil)
        #expect(scanner.object("type") == nil)
        #expect(scanner.object("body")?.string("causedBy") == nil)  // has an escape: decode it properly instead
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
    }
}
