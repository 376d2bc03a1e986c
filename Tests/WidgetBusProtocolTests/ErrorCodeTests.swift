import Foundation
import Testing
@testable import WidgetBusProtocol
import WidgetDomain

@Suite("Error codes")
struct ErrorCodeTests {
    @Test func allHasNoDuplicates() {
        let raw = ErrorCode.all.map(\.rawValue)
        #expect(Set(raw).count == raw.count, "duplicates: \(raw.filter { code in raw.filter { $0 == code }.count > 1 })")
    }

    @Test func allKeepsEveryStableCode() {
        // Codes may be added, never renamed or dropped: clients branch on them.
        #expect(Set(ErrorCode.all.map(\.rawValue)).isSuperset(of: [
            "payload_too_large", "bad_frames", "bad_json", "unsupported_version", "unknown_type", "missing_field",
            "invalid_field", "invalid_user", "id_reused", "unavailable", "internal", "invalid_level",
            "unknown_check_in",
        ]))
    }

    @Test func codesAreSnakeCase() {
        for code in ErrorCode.all {
            #expect(code.rawValue.wholeMatch(of: /[a-z]+(_[a-z]+)*/) != nil, "\(code)")
        }
    }

    @Test func widgetRuleViolationsUseListedCodes() {
        var context = ReduceContext(
            now: Wire.now, timeZone: .gmt, random: RandomSource(SeededRandom(seed: 1)))
        var codes: [String] = []
        for intent in [TensionCheckIntent.recordTension(level: 4), .markInterventionDone(checkInId: "nope")] {
            do {
                _ = try TensionCheckStateMachine.reduce(.initial, intent, context: &context)
            } catch {
                codes.append(error.code)
            }
        }
        #expect(codes == [ErrorCode.invalidLevel.rawValue, ErrorCode.unknownCheckIn.rawValue])
        #expect(codes.allSatisfy { code in ErrorCode.all.contains(ErrorCode(rawValue: code)) })
    }

    @Test func codesEncodeAsBareStrings() throws {
        #expect(text(try WireCodec().encode([ErrorCode.internalError])) == #"["internal"]"#)
        #expect(ErrorCode.badJSON.description == "bad_json")
        #expect(ProtocolError(.invalidUser, "bad").description == "invalid_user: bad")
    }

    /// …/Tests/WidgetBusProtocolTests/ErrorCodeTests.swift → repository root.
    static let protocolDoc = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/PROTOCOL.md")

    @Test func everyCodeIsDocumentedInProtocolMD() throws {
        let path = Self.protocolDoc.path
        try #require(
            FileManager.default.fileExists(atPath: path),
            "docs/PROTOCOL.md does not exist yet (looked at \(path)); it must document every ErrorCode.all value")
        let doc = try String(contentsOfFile: path, encoding: .utf8)
        let undocumented = ErrorCode.all.map(\.rawValue).filter { !doc.contains("`\($0)`") }
        #expect(undocumented.isEmpty, "docs/PROTOCOL.md does not document error code(s) \(undocumented)")
    }
}
