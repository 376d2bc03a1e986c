import BusRuntime
import ServiceSupport

/// Where a service serves `/metrics` and `/healthz`: `WIDGETBUS_HTTP_LISTEN`, `host:port`, the
/// same variable in every service. Unset, the service serves no HTTP and exports no metrics.
///
/// The endpoint serves counts and latencies only — no user id, no payload, nothing that changes
/// anything — but no key guards it, so it follows the bus's rule: loopback, unless the
/// deployment says the address is on a network only its scraper reaches
/// (`WIDGETBUS_HTTP_SCRAPE_NETWORK=1`, as compose's internal network is: it publishes none of
/// these ports) or accepts that anyone who reaches it may read it (`WIDGETBUS_INSECURE=1`).
public struct HTTPListenAddress: Sendable, Equatable, CustomStringConvertible {
    public let host: String
    /// 0 asks the system for a free port; the service logs the one it got.
    public let port: Int

    public static let setting = EnvironmentSetting(
        variable: "WIDGETBUS_HTTP_LISTEN", defaultValue: "none: no metrics",
        purpose: "host:port where this service serves Prometheus metrics (/metrics) and /healthz, e.g. 127.0.0.1:9464")
    public static let scrapeNetwork = EnvironmentSetting(
        variable: "WIDGETBUS_HTTP_SCRAPE_NETWORK", defaultValue: "0",
        purpose: "1 when WIDGETBUS_HTTP_LISTEN beyond loopback is on a network only the metrics scraper reaches; otherwise refused")
    /// The settings it reads, for `--help`.
    public static let settings = [setting, scrapeNetwork, BusBinding.insecure]

    /// The address `environment` sets; nil when it sets none.
    ///
    /// - Throws: ``InvalidSetting`` for anything but `host:port` with a port in 0…65535, and for
    ///   a host beyond loopback with neither `WIDGETBUS_HTTP_SCRAPE_NETWORK=1` nor
    ///   `WIDGETBUS_INSECURE=1`.
    public init?(environment: [String: String]) throws(InvalidSetting) {
        guard let text = environment[Self.setting.variable], !text.isEmpty else { return nil }
        let (host, port) = try Self.setting.hostAndPort(text, example: "127.0.0.1:9464 or 0.0.0.0:9464")
        let scrapeNetwork = try Self.scrapeNetwork.flag(in: environment), insecure = try BusBinding.insecure.flag(in: environment)
        guard BusBinding.isLoopback(host) || scrapeNetwork || insecure else {
            throw InvalidSetting(
                "refusing to serve metrics on \(host) to anyone who reaches it: listen on loopback (127.0.0.1:\(port)), set "
                    + "\(Self.scrapeNetwork.variable)=1 if only your scraper's network reaches \(host), or \(BusBinding.insecure.variable)=1")
        }
        self.host = host
        self.port = port
    }

    public var description: String { "\(host):\(port)" }
}
