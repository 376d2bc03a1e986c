import Foundation
import ServiceSupport
import WidgetBusProtocol

/// How a service is on the network: where its sockets listen — every endpoint it binds, at that
/// endpoint's port, on one host (`WIDGETBUS_BIND_HOST`), loopback unless the deployment says
/// otherwise — and, when keys are configured, CURVE on every socket (``BusSecurity``).
///
/// The bus carries users' health data, so a service listens beyond this machine only with CURVE,
/// or when told twice: a non-loopback host, and `WIDGETBUS_INSECURE=1` to accept that anyone who
/// reaches the port can read and write it. Otherwise it refuses to start and says so in one line.
public struct BusBinding: Sendable {
    /// The interface to listen on: an IPv4 address, `0.0.0.0` or `*` for all of them, or an
    /// interface name (`eth0`), as libzmq reads it.
    public let host: String
    /// CURVE keys and allow-lists; nil runs the bus in the clear.
    public let security: BusSecurity.Settings?
    /// The configured endpoints by address, so metrics name a socket's endpoint (`intents`)
    /// rather than its address.
    let endpoints: [String: BusEndpoint]

    public static let host = EnvironmentSetting(
        variable: "WIDGETBUS_BIND_HOST", defaultValue: "127.0.0.1",
        purpose: "interface every endpoint of this service listens on: an IPv4 address, 0.0.0.0 for all, or an interface name")
    public static let insecure = EnvironmentSetting(
        variable: "WIDGETBUS_INSECURE", defaultValue: "0",
        purpose: "1 to listen beyond loopback without authentication (anyone who reaches a port can use it)")
    /// The settings every service that binds reads, for its `--help` (with ``BusSecurity/settings``).
    public static let settings = [host, insecure]

    /// Loopback, as every service listens by default, with the default endpoints.
    public static let loopback = BusBinding(host: "127.0.0.1", security: nil, environment: [:])

    /// For a bus that binds nothing and connects, with CURVE when `environment` configures keys
    /// (a follower, a CLI).
    ///
    /// - Throws: ``InvalidSetting`` for keys that cannot be read (``BusSecurity/Settings/init(environment:)``).
    public init(connectingIn environment: [String: String]) throws(InvalidSetting) {
        self.init(host: Self.loopback.host, security: try BusSecurity.Settings(environment: environment), environment: environment)
    }

    init(host: String, security: BusSecurity.Settings?, environment: [String: String]) {
        self.host = host
        self.security = security
        endpoints = BusEndpoint.byAddress(in: environment)
    }

    /// The binding `environment` asks for.
    ///
    /// - Throws: ``InvalidSetting`` for an empty host, a `WIDGETBUS_INSECURE` other than 0 or 1,
    ///   a host beyond loopback with neither CURVE keys nor `WIDGETBUS_INSECURE=1`, or keys or
    ///   allow-lists that cannot be read (``BusSecurity/Settings/init(environment:)``,
    ///   ``BusSecurity/Settings/checkAllowLists()``).
    public init(environment: [String: String]) throws(InvalidSetting) {
        let host = Self.host.resolve(in: environment).trimmingCharacters(in: .whitespaces)
        guard !host.isEmpty, !host.contains(":"), !host.contains("/") else {
            throw InvalidSetting("\(Self.host.variable) must be an IPv4 address, 0.0.0.0 or an interface name, got '\(host)'")
        }
        let insecure = try Self.insecure.flag(in: environment)
        let security = try BusSecurity.Settings(environment: environment)
        try security?.checkAllowLists()
        guard Self.isLoopback(host) || security != nil || insecure else {
            throw InvalidSetting(
                "refusing to listen on \(host) without authentication: anyone who reaches the bus could read and write every "
                    + "user's data; configure CURVE keys (\(BusSecurity.secretKeyFile.variable)), listen on loopback "
                    + "(\(Self.host.variable)=127.0.0.1), or set \(Self.insecure.variable)=1 to accept that")
        }
        self.init(host: host, security: security, environment: environment)
    }

    /// The address a socket binds for `endpoint`: its port on ``host`` (ipc and inproc as given).
    public func address(for endpoint: String) -> String {
        BusEndpoint.bindAddress(for: endpoint, host: host)
    }

    /// The name of the configured endpoint at `address` (``BusEndpoint/name``); the address
    /// itself for one the environment does not configure.
    public func endpointName(of address: String) -> String {
        endpoints[address]?.name ?? address
    }

    /// Whether `host` reaches this machine only: an address in 127.0.0.0/8, `localhost`, or the
    /// loopback interface.
    public static func isLoopback(_ host: String) -> Bool {
        if host == "lo" || host == "localhost" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }
}
