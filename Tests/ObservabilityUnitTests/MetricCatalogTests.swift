import Foundation
import Observability
import Testing

@Suite("Metric catalog")
struct MetricCatalogTests {
    static let observabilityDoc = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/OBSERVABILITY.md")

    @Test("every name follows Prometheus's conventions, once")
    func namesFollowTheConventions() {
        #expect(Set(MetricCatalog.all.map(\.name)).count == MetricCatalog.all.count, "a name declared twice")
        for metric in MetricCatalog.all {
            #expect(metric.name.wholeMatch(of: /widgetbus_[a-z0-9_]+/) != nil, "\(metric.name)")
            #expect(metric.name.hasSuffix("_total") == (metric.kind == .counter), "\(metric.name): _total exactly on counters")
            #expect(!metric.labels.contains("user"), "\(metric.name): a user id is never a label")
            #expect(!metric.help.isEmpty && metric.help.hasSuffix("."), "\(metric.name): a meaning, as a sentence")
        }
    }

    @Test("docs/OBSERVABILITY.md lists every metric as the catalog declares it, and no other")
    func theDocsListEveryMetric() throws {
        let text = try String(contentsOf: Self.observabilityDoc, encoding: .utf8)
        var documented: [String: String] = [:]  // name → its row
        for row in text.split(separator: "\n") where row.hasPrefix("| `widgetbus_") {
            let name = String(row.dropFirst(3).prefix { $0 != "`" })
            documented[name] = String(row)
        }
        for metric in MetricCatalog.all {
            let row = try #require(documented[metric.name], "\(metric.name) is not documented")
            let labels = metric.labels.isEmpty ? "—" : metric.labels.map { "`\($0)`" }.joined(separator: ", ")
            #expect(row == "| `\(metric.name)` | \(metric.kind.rawValue) | \(labels) | \(metric.help) |", "\(metric.name)")
        }
        #expect(Set(documented.keys) == Set(MetricCatalog.all.map(\.name)), "documented but not declared")
    }
}
