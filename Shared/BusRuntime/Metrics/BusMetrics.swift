import Dispatch
import Metrics
import Observability
import Synchronization
import WidgetBusProtocol

/// The metrics the bus runtime reports for every service, through swift-metrics: whichever
/// backend the process bootstrapped (Prometheus in a service, none in a test or a CLI, where
/// every handle does nothing) receives them.
///
/// Handles are made once, when a socket is declared or a label is first seen, never per
/// message: making one asks the backend under a lock, recording on one is an atomic add or an
/// uncontended lock. Labels have few values each — an endpoint's name, a message type, an error
/// code — and never a user id.
enum BusMetrics {
    /// The time since `start`, in nanoseconds, for a timer.
    static func nanoseconds(since start: DispatchTime) -> Int64 {
        Int64(truncatingIfNeeded: DispatchTime.now().uptimeNanoseconds &- start.uptimeNanoseconds)
    }
}

/// What a bus reports of one socket: the messages it takes, how many at a time, and how long
/// its handler takes for them.
struct SocketMetrics {
    /// `widgetbus_bus_messages_received_total{endpoint}`
    let received: Counter
    /// `widgetbus_bus_batch_size{endpoint}`: messages taken in one turn.
    let batchSize: Recorder
    /// `widgetbus_bus_handler_duration_seconds{endpoint}`: one turn's handler, for its batch
    /// (with the taking, for a socket whose handler gets each message as it is taken).
    let handling: Timer

    init(endpoint: String) {
        let labels = ["endpoint": endpoint]
        received = Counter(MetricCatalog.busMessagesReceived, labels)
        batchSize = Recorder(histogramOf: MetricCatalog.busBatchSize, labels)
        handling = Timer(MetricCatalog.busHandlerDuration, labels)
    }

    func took(_ count: Int, since start: DispatchTime) {
        received.increment(by: count)
        batchSize.record(count)
        handling.recordInterval(since: start)
    }
}

/// What a bus reports of an endpoint it answers requests at, beside its ``SocketMetrics``.
final class RequestMetrics {
    let endpoint: String
    /// `widgetbus_bus_replies_sent_total{endpoint}`
    let replies: Counter
    /// `widgetbus_bus_request_duration_seconds{endpoint}`: from the moment the bus took a request
    /// off the socket to its reply, for the requests answered in the same turn.
    let latency: Timer
    /// `widgetbus_bus_requests_total{endpoint,type}`; nil for an undecodable request.
    private var byType: CounterFamily<MessageType?>

    init(endpoint: String) {
        self.endpoint = endpoint
        replies = Counter(MetricCatalog.busRepliesSent, ["endpoint": endpoint])
        latency = Timer(MetricCatalog.busRequestDuration, ["endpoint": endpoint])
        byType = CounterFamily { Counter(MetricCatalog.busRequests, ["endpoint": endpoint, "type": $0?.rawValue ?? "undecodable"]) }
    }

    /// Counts a request of `type`; "undecodable" for one that did not decode. Only the types of
    /// the protocol are labels: anything else a client sends is undecodable.
    func received(_ type: MessageType?) {
        byType.increment(type)
    }
}

/// `widgetbus_error_replies_total{code}`: every error reply the process makes, by its code (the
/// codes are the protocol's, a fixed set). Any thread of the process may make one.
enum ErrorReplyMetrics {
    private static let counters = Mutex(CounterFamily<ErrorCode> { Counter(MetricCatalog.errorReplies, ["code": $0.rawValue]) })

    static func count(_ code: ErrorCode) {
        counters.withLock { $0.increment(code) }
    }
}
