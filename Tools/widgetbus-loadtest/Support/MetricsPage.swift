import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One reading of a service's metrics listener (`/metrics`, Prometheus text): how the tool
/// waits for a service to have done something, and reads what the service measured itself.
struct MetricsPage {
    private let samples: [Substring]

    /// Reads `url`; nil when nothing answers there.
    init?(url: URL) {
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return nil }
        samples = text.split(separator: "\n").filter { !$0.hasPrefix("#") }
    }

    /// The sum of `name`'s samples whose labels contain `labels` (nil: all); nil when there is none.
    func value(_ name: String, _ labels: String? = nil) -> Double? {
        let values = samples.filter { line in
            (line.hasPrefix(name + " ") || line.hasPrefix(name + "{")) && (labels.map { line.contains($0) } ?? true)
        }.compactMap { $0.split(separator: " ").last.flatMap { Double($0) } }
        return values.isEmpty ? nil : values.reduce(0, +)
    }

    /// Histogram `name`'s cumulative counts, by bucket bound (`+Inf` last), of a histogram without labels.
    func buckets(_ name: String) -> [HistogramBucket] {
        let prefix = name + "_bucket{le=\""
        return samples.compactMap { line in
            guard line.hasPrefix(prefix), let close = line.firstIndex(of: "\""), let end = line[line.index(after: close)...].firstIndex(of: "\""),
                let bound = Double(line[line.index(after: close)..<end]), let count = line.split(separator: " ").last.flatMap({ Double($0) })
            else { return nil }
            return HistogramBucket(upperBound: bound, count: count)
        }.sorted { $0.upperBound < $1.upperBound }
    }
}

/// One bucket of a Prometheus histogram: how many observations were at most `upperBound`.
struct HistogramBucket: Equatable, Sendable {
    var upperBound: Double
    var count: Double
}
