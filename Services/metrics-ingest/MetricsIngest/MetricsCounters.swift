import Metrics
import Observability
import WidgetBusProtocol
import WidgetDomain

/// The status counters by name — `accepted`, `duplicate`, `sample.<reason>`, `message.<code>` —
/// as they are persisted and summed; ``status`` shapes them for `MetricsStatusReply` and
/// ``export(to:)`` adds them to the process's metrics.
struct MetricsCounters: Equatable {
    var values: [String: UInt64] = [:]

    mutating func countAccepted() { values["accepted", default: 0] += 1 }
    mutating func countDuplicate() { values["duplicate", default: 0] += 1 }
    mutating func count(_ reason: MetricRejection.Reason) { values["sample." + reason.rawValue, default: 0] += 1 }
    mutating func count(_ code: ErrorCode) { values["message." + code.rawValue, default: 0] += 1 }

    mutating func add(_ other: MetricsCounters) {
        values.merge(other.values, uniquingKeysWith: +)
    }

    /// Adds these counts to `exported` (``exportedCounters()``).
    func export(to exported: inout CounterFamily<String>) {
        for (name, value) in values where value > 0 {
            exported.increment(name, by: Int64(value))
        }
    }

    /// The counters by name as metrics: `widgetbus_metric_samples_total{result}` (`accepted`,
    /// `duplicate`, or the rejection reason) and `widgetbus_metric_messages_refused_total{code}`.
    static func exportedCounters() -> CounterFamily<String> {
        CounterFamily { name in
            if name.hasPrefix("message.") {
                return Counter(MetricCatalog.metricMessagesRefused, ["code": String(name.dropFirst("message.".count))])
            }
            return Counter(MetricCatalog.metricSamples, ["result": name.hasPrefix("sample.") ? String(name.dropFirst("sample.".count)) : name])
        }
    }

    var isEmpty: Bool { values.values.allSatisfy { $0 == 0 } }

    func status(sequence: UInt64, users: Int) -> MetricsStatusBody {
        func group(_ prefix: String) -> [String: UInt64] {
            Dictionary(uniqueKeysWithValues: values.filter { $0.key.hasPrefix(prefix) }.map { (String($0.key.dropFirst(prefix.count)), $0.value) })
        }
        return MetricsStatusBody(
            accepted: values["accepted"] ?? 0, duplicates: values["duplicate"] ?? 0,
            rejectedSamples: group("sample."), rejectedMessages: group("message."), sequence: sequence, users: users)
    }
}
