import Foundation
import Testing
@testable import WidgetBusProtocol

@Suite("User id validation")
struct UserValidationTests {
    static let invalid: [String] = [
        "", ".", "..",
        "a/b", "/", "alice/", "/alice", "a\\b", "\\",
        "a\u{0}b", "\u{0}", "tab\tuser", "new\nline", "cr\r", "del\u{7F}", "c1\u{85}",
        "zero\u{200B}width", "\u{FEFF}bom", "line\u{2028}sep", "para\u{2029}sep", "rtl\u{202E}override",
        String(repeating: "a", count: 129),
        String(repeating: "é", count: 65),   // 65 characters, 130 UTF-8 bytes
        String(repeating: "日", count: 43),  // 43 characters, 129 UTF-8 bytes
        "cafe\u{301}",                      // NFD spelling of café
        "\u{2126}hm",                        // OHM SIGN: NFC makes it U+03A9
    ]

    static let valid: [String] = [
        "alice", "a", "A-Z_0.9", "user@example.com", "...", ".hidden", "alice.", "a b",
        "zoë", "日本語ユーザー", "🙂", "Ωμέγα", "user:42", "-", "_",
        String(repeating: "a", count: 128),
        String(repeating: "é", count: 64),   // 128 UTF-8 bytes
        String(repeating: "😫", count: 32),  // 128 UTF-8 bytes
    ]

    @Test("invalid user ids are refused with invalid_user", arguments: invalid)
    func refused(user: String) {
        do {
            try ProtocolLimits.validateUser(user)
            Issue.record("\(user.debugDescription) was accepted")
        } catch {
            #expect(error.code == .invalidUser)
        }
    }

    @Test("valid user ids are accepted", arguments: valid)
    func accepted(user: String) {
        #expect(throws: Never.self) { try ProtocolLimits.validateUser(user) }
    }

    @Test func everyASCIICharacterIsJudgedAsItsUnicodeCategorySays() {
        for value in UInt8(0)..<0x80 {
            let scalar = Unicode.Scalar(value)
            let forbidden = scalar.properties.generalCategory == .control || scalar == "/" || scalar == "\\"
            let user = "a\(Character(scalar))b"
            if forbidden {
                #expect(throws: ProtocolError.self, "\(value)") { try ProtocolLimits.validateUser(user) }
            } else {
                #expect(throws: Never.self, "\(value)") { try ProtocolLimits.validateUser(user) }
            }
        }
    }

    @Test func onlyTheNFCSpellingOfAnIdIsAccepted() {
        let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
        #expect(composed == decomposed)  // Swift's equality: why the rule exists
        #expect(throws: Never.self) { try ProtocolLimits.validateUser(composed) }
        #expect(throws: ProtocolError.self) { try ProtocolLimits.validateUser(decomposed) }
    }

    @Test func lengthIsCountedInUTF8Bytes() {
        #expect(ProtocolLimits.maxUserIDBytes == 128)
        let bytes128 = String(repeating: "é", count: 64)
        #expect(bytes128.count == 64 && bytes128.utf8.count == 128)
        #expect(throws: Never.self) { try ProtocolLimits.validateUser(bytes128) }
        #expect(throws: ProtocolError.self) { try ProtocolLimits.validateUser(bytes128 + "a") }
    }

    @Test("the envelope applies the same rule", arguments: [
        (String(repeating: "u", count: 128), true),
        (String(repeating: "u", count: 129), false),
        ("zoë-日本", true),
        ("🙂", true),
        ("a\\b", false),
    ])
    func throughTheEnvelope(user: String, ok: Bool) throws {
        let json = requestJSON(user: quoted(user))
        if ok {
            #expect(try decodeRequest(json).user == user)
        } else {
            #expect(refusal(json) == .invalidUser)
        }
    }

    @Test func escapedControlCharactersAreRefusedThroughTheEnvelope() {
        #expect(refusal(requestJSON(user: #""a\u0000b""#)) == .invalidUser)
        #expect(refusal(requestJSON(user: #""a\u001fb""#)) == .invalidUser)
        #expect(refusal(requestJSON(user: #""a\/b""#)) == .invalidUser)
    }
}
