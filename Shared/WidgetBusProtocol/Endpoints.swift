/// One configurable endpoint of the bus: the environment variable that sets it and its
/// loopback default. A service binds the endpoint's port on the host its binding names
/// (`WIDGETBUS_BIND_HOST`, loopback by default); clients connect to the endpoint as given.
public struct BusEndpoint: Sendable, Hashable {
    public let variable: String
    public let defaultValue: String
    public let purpose: String

    public static let intents = BusEndpoint(
        variable: "WIDGETBUS_INTENTS", defaultValue: "tcp://127.0.0.1:5560",
        purpose: "intent-handler request endpoint (intents and app messages)")
    public static let stateEvents = BusEndpoint(
        variable: "WIDGETBUS_STATE_EVENTS", defaultValue: "tcp://127.0.0.1:5561",
        purpose: "intent-handler state-changed publisher")
    public static let stateSnapshot = BusEndpoint(
        variable: "WIDGETBUS_STATE_SNAPSHOT", defaultValue: "tcp://127.0.0.1:5562",
        purpose: "intent-handler snapshot endpoint for re-syncing subscribers")
    public static let timelines = BusEndpoint(
        variable: "WIDGETBUS_TIMELINES", defaultValue: "tcp://127.0.0.1:5570",
        purpose: "timeline-service request endpoint: timelines, and timeline snapshots for re-syncing subscribers")
    public static let timelineEvents = BusEndpoint(
        variable: "WIDGETBUS_TIMELINE_EVENTS", defaultValue: "tcp://127.0.0.1:5571",
        purpose: "timeline-service timeline publisher")

    public static let sync = BusEndpoint(
        variable: "WIDGETBUS_SYNC", defaultValue: "tcp://127.0.0.1:5590",
        purpose: "sync-agent request endpoint (sync now, sync status)")
    public static let syncEvents = BusEndpoint(
        variable: "WIDGETBUS_SYNC_EVENTS", defaultValue: "tcp://127.0.0.1:5591",
        purpose: "sync-agent publisher of sync results")

    public static let metrics = BusEndpoint(
        variable: "WIDGETBUS_METRICS", defaultValue: "tcp://127.0.0.1:5580",
        purpose: "metrics-ingest PULL endpoint for samples (PUSH MetricSample / MetricBatch)")
    public static let metricsEvents = BusEndpoint(
        variable: "WIDGETBUS_METRICS_EVENTS", defaultValue: "tcp://127.0.0.1:5581",
        purpose: "metrics-ingest publisher of metrics-changed events")
    public static let metricsSnapshot = BusEndpoint(
        variable: "WIDGETBUS_METRICS_SNAPSHOT", defaultValue: "tcp://127.0.0.1:5582",
        purpose: "metrics-ingest snapshot and status endpoint")

    public static let all: [BusEndpoint] = [
        .intents, .stateEvents, .stateSnapshot, .timelines, .timelineEvents, .sync, .syncEvents,
        .metrics, .metricsEvents, .metricsSnapshot,
    ]

    /// The endpoint's short name, as metrics label it: its variable without the prefix, in lower
    /// case (`WIDGETBUS_STATE_EVENTS` is `state_events`).
    public var name: String {
        variable.dropFirst("WIDGETBUS_".count).lowercased()
    }

    /// Every configured endpoint, by the address `environment` configures it with (the first, if
    /// two share one).
    public static func byAddress(in environment: [String: String]) -> [String: BusEndpoint] {
        Dictionary(all.map { ($0.resolve(in: environment), $0) }) { first, _ in first }
    }

    /// The configured endpoint, from `environment` or the default.
    public func resolve(in environment: [String: String]) -> String {
        environment[variable].flatMap { $0.isEmpty ? nil : $0 } ?? defaultValue
    }

    /// The address to bind for a configured endpoint on `host`: `tcp://name:port` becomes
    /// `tcp://host:port` (the endpoint's own host names the service to its clients, not an
    /// interface); other transports (ipc, inproc) bind as given.
    public static func bindAddress(for endpoint: String, host: String) -> String {
        let address = endpoint.dropFirst("tcp://".count)
        guard endpoint.hasPrefix("tcp://"), let colon = address.lastIndex(of: ":") else { return endpoint }
        return "tcp://\(host)" + address[colon...]
    }
}
