import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A scrape of a `/metrics` endpoint, read by the rules of Prometheus's text exposition format
/// (version 0.0.4): every line ends with a line feed; a `# TYPE` line comes before the samples of
/// its metric; a sample is `name{label="value",…} number`; a histogram has cumulative `_bucket`
/// samples ending at `le="+Inf"`, whose count is the `_count` sample. Any breach throws.
struct PrometheusText {
    struct Sample: Equatable {
        var name: String
        var labels: [String: String]
        var value: Double
    }

    struct Malformed: Error, CustomStringConvertible {
        var description: String
    }

    private(set) var types: [String: String] = [:]
    private(set) var samples: [Sample] = []

    /// GETs `url` with a plain HTTP client and parses what it answers.
    static func scrape(_ url: String) throws -> PrometheusText {
        try PrometheusText(parsing: try String(contentsOf: URL(string: url)!, encoding: .utf8))
    }

    init(parsing text: String) throws {
        guard text.isEmpty || text.hasSuffix("\n") else { throw Malformed(description: "the last line does not end with a line feed") }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
            if line.isEmpty { continue }
            if line.hasPrefix("#") {
                let words = line.split(separator: " ", maxSplits: 3)
                if words.count >= 2, words[1] == "TYPE" {
                    guard words.count == 4, ["counter", "gauge", "histogram", "summary", "untyped"].contains(words[3]) else {
                        throw Malformed(description: "bad TYPE line: \(line)")
                    }
                    guard types.updateValue(String(words[3]), forKey: String(words[2])) == nil else {
                        throw Malformed(description: "a second TYPE line for \(words[2])")
                    }
                }
                continue
            }
            let sample = try Self.sample(String(line))
            guard types[Self.family(of: sample.name)] != nil else { throw Malformed(description: "no TYPE before \(line)") }
            samples.append(sample)
        }
        try checkHistograms()
    }

    /// The sum of the samples named `name` whose labels include `labels` (the one sample, when
    /// `labels` name a series); nil when none.
    func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        let matching = samples.filter { sample in sample.name == name && labels.allSatisfy { sample.labels[$0.key] == $0.value } }
        return matching.isEmpty ? nil : matching.reduce(0) { $0 + $1.value }
    }

    // MARK: - Rules

    private static func sample(_ line: String) throws -> Sample {
        let sampleLine = #/^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/#
        let label = #/^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(?:,|$)/#
        guard let match = line.wholeMatch(of: sampleLine) else { throw Malformed(description: "not a sample: \(line)") }
        var labels: [String: String] = [:]
        var rest = Substring(match.2 ?? "")
        while !rest.isEmpty {
            guard let label = rest.prefixMatch(of: label) else { throw Malformed(description: "bad labels: \(line)") }
            labels[String(label.1)] = String(label.2)
            rest = rest[label.range.upperBound...]
        }
        let text = String(match.3)
        guard let value = Double(text) ?? ["+Inf": Double.infinity, "-Inf": -.infinity, "NaN": .nan][text] else {
            throw Malformed(description: "bad value: \(line)")
        }
        return Sample(name: String(match.1), labels: labels, value: value)
    }

    /// The metric a sample belongs to: a histogram's samples carry a suffix.
    private static func family(of name: String) -> String {
        for suffix in ["_bucket", "_sum", "_count"] where name.hasSuffix(suffix) {
            return String(name.dropLast(suffix.count))
        }
        return name
    }

    private func checkHistograms() throws {
        for (name, type) in types where type == "histogram" {
            let buckets = samples.filter { $0.name == name + "_bucket" }
            let series = Dictionary(grouping: buckets) { $0.labels.filter { $0.key != "le" } }
            for (labels, buckets) in series {
                let counts = buckets.map(\.value)
                guard buckets.last?.labels["le"] == "+Inf", counts == counts.sorted() else {
                    throw Malformed(description: "\(name)\(labels): buckets not cumulative up to +Inf")
                }
                guard value(name + "_count", labels) == counts.last, value(name + "_sum", labels) != nil else {
                    throw Malformed(description: "\(name)\(labels): _count is not the +Inf bucket, or no _sum")
                }
            }
        }
    }
}
