import Foundation
import Testing
import WidgetBusProtocol

/// RFC 7493 (I-JSON) as app-gateway asks it of HTTP bodies: one JSON text, no key twice in an
/// object, at any depth, keys compared by code points.
struct InternetJSONTests {
    /// (The last: `é` precomposed and `e` + U+0301 are two keys.)
    @Test func oneTextWithDistinctKeysPasses() throws {
        for text in [#"{"type":"RecordTensionIntent","body":{"level":7}}"#, "[]", #"{"a":{"a":{"a":1}},"b":[{"a":1},{"a":2}]}"#, " {\"\u{E9}\":1,\"e\u{301}\":2} "] {
            try InternetJSON.check(Data(text.utf8))
        }
    }

    @Test func aRepeatedKeyIsRefusedAtAnyDepthNamingIt() {
        let cases = [
            (#"{"level":3,"level":10}"#, "level"),
            (#"{"body":{"level":3,"level":10}}"#, "level"),
            (#"[{"x":1},{"y":1,"y":2}]"#, "y"),
            (#"{"a":1,"\u0061":2}"#, "a"),
        ]
        for (text, key) in cases {
            #expect(throws: InternetJSON.Refusal.repeatedKey(key), "\(text)") { try InternetJSON.check(Data(text.utf8)) }
        }
    }

    @Test func whatIsNotOneJSONTextIsRefused() {
        for text in ["", "level=7", #"{"a":1} x"#, #"{"a":1}{"b":2}"#, "{\"a\":\"\u{1}\"}", #"{"a":01}"#] {
            let refusal = #expect(throws: InternetJSON.Refusal.self, "\(text)") { try InternetJSON.check(Data(text.utf8)) }
            guard case .notJSON? = refusal else {
                Issue.record("\(text): \(String(describing: refusal))")
                continue
            }
        }
    }
}
