import Foundation
import Testing
import WidgetDomain

@testable import WidgetBusProtocol

/// The catalog of error codes is complete: every code a widget rule can raise is listed (and so
/// documented, which ErrorCodeTests checks), and nothing listed is stale.
@Suite("Widget rule codes")
struct WidgetRuleCodeCatalogTests {
    /// Every `RuleViolation(code: "…")` literal in the domain's sources.
    static let codesInDomainSources: Set<String> = {
        let domain = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Shared/WidgetDomain")
        let files = FileManager.default.enumerator(at: domain, includingPropertiesForKeys: nil)!
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
        let pattern = try! NSRegularExpression(pattern: #"code: "([a-z_]+)""#)
        var codes = Set<String>()
        for file in files {
            let text = try! String(contentsOf: file, encoding: .utf8)
            for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                codes.insert(String(text[Range(match.range(at: 1), in: text)!]))
            }
        }
        return codes
    }()

    @Test func everyDomainCodeIsInTheCatalog() {
        let listed = Set(ErrorCode.widgetRuleCodes.values.joined().map(\.rawValue))
        #expect(Self.codesInDomainSources.count >= 40)
        #expect(Self.codesInDomainSources.subtracting(listed).isEmpty)
        #expect(listed.subtracting(Self.codesInDomainSources).isEmpty, "stale codes in the catalog")
    }

    @Test func everyAppHasItsRules() {
        for app in WidgetApp.allCases {
            #expect(ErrorCode.widgetRuleCodes[app]?.isEmpty == false, "\(app)")
        }
    }

    @Test func noCodeIsListedTwice() {
        #expect(Set(ErrorCode.all).count == ErrorCode.all.count)
    }
}
