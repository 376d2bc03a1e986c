import ServiceSupport

/// Where a service serves `/metrics` and `/healthz`: `WIDGETBUS_HTTP_LISTEN`, `host:port`, the
/// same variable in every service. Unset, the service serves no HTTP and exports no metrics.
///
/// The endpoint serves counts and latencies only — no user id, no payload, nothing that changes
/// anything — so, unlike the bus, it may listen beyond loopback without keys; a deployment keeps
/// it on its internal network (compose publishes none of these ports).
public struct HTTPListenAddress: Sendable, Equatable, CustomStringConvertible {
    public let host: String
    /// 0 asks the system for a free port; the service logs the one it got.
    public let port: Int

    public static let setting = EnvironmentSetting(
        variable: "WIDGETBUS_HTTP_LISTEN", defaultValue: "none: no metrics",
        purpose: "host:port where this service serves Prometheus metrics (/metrics) and /healthz, e.g. 127.0.0.1:9464")

    /// The address `environment` sets; nil when it sets none.
    ///
    /// - Throws: ``InvalidSetting`` for anything but `host:port` with a port in 0…65535.
    public init?(environment: [String: String]) throws(InvalidSetting) {
        guard let text = environment[Self.setting.variable], !text.isEmpty else { return nil }
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65_535).contains(port),
            case let host = String(text[..<colon]), !host.isEmpty, !host.contains(":")
        else {
            throw InvalidSetting("\(Self.setting.variable) must be host:port, such as 127.0.0.1:9464 or 0.0.0.0:9464, got '\(text)'")
        }
        self.host = host
        self.port = port
    }

    public var description: String { "\(host):\(port)" }
}
