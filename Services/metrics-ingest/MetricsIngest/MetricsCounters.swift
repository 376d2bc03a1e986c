import Metrics
import ServiceSupport
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

    /// Adds these counts to `widgetbus_metric_samples_total{result}` (`accepted`, `duplicate`, or
    /// the rejection reason) and `widgetbus_metric_messages_refused_total{code}`; `counters`
    /// keeps the handles by counter name.
    func export(to counters: inout [String: Counter]) {
        for (name, value) in values where value > 0 {
            let counter = counters[name] ?? {
                let counter: Counter
                if name.hasPrefix("message.") {
                    counter = Counter(MetricCatalog.metricMessagesRefused, ["code": String(name.dropFirst("message.".count))])
                } else {
                    let result = name.hasPrefix("sample.") ? String(name.dropFirst("sample.".count)) : name
                    counter = Counter(MetricCatalog.metricSamples, ["result": result])
                }
                counters[name] = counter
                return counter
            }()
            counter.increment(by: Int64(value))
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
