import BusRuntime
import Foundation
import NIOSSL
import ServiceSupport

/// What app-gateway reads from its environment besides the bus's endpoints and keys
/// (docs/API.md, "Settings").
struct GatewaySettings: Sendable {
    var host: String
    var port: Int
    /// The certificate chain and key to serve HTTPS with; nil serves plain HTTP, on loopback only
    /// (behind a TLS-terminating proxy) unless `WIDGETBUS_INSECURE=1`.
    var tls: TLSConfiguration?
    var tokenLeeway: Duration
    var writes: RateLimiter.Limit
    var addresses: RateLimiter.Limit
    var maxConnections: Int
    var idleTimeout: Duration
    var limits: GatewayAPI.Limits
    var snapshotRoot: String

    static let listen = EnvironmentSetting(
        variable: "WIDGETBUS_GATEWAY_LISTEN", defaultValue: "127.0.0.1:8443", purpose: "host:port app-gateway serves its HTTP API on")
    static let certificate = EnvironmentSetting(
        variable: "WIDGETBUS_GATEWAY_TLS_CERT", defaultValue: "none: plain HTTP",
        purpose: "PEM certificate chain to serve HTTPS (HTTP/2 and HTTP/1.1) with; needs WIDGETBUS_GATEWAY_TLS_KEY")
    static let privateKey = EnvironmentSetting(
        variable: "WIDGETBUS_GATEWAY_TLS_KEY", defaultValue: "none: plain HTTP", purpose: "PEM private key of WIDGETBUS_GATEWAY_TLS_CERT")
    static let leeway = EnvironmentSetting(
        variable: "WIDGETBUS_GATEWAY_TOKEN_LEEWAY_S", defaultValue: "60", purpose: "clock skew in seconds allowed around a token's exp and nbf (0–60)")
    static let writeBurst = EnvironmentSetting(
        variable: "WIDGETBUS_GATEWAY_WRITE_BURST", defaultValue: "20", purpose: "writes one user may send at once")
    static let writeRate = EnvironmentSetting(
        variable: "WIDGETBUS_GATEWAY_WRITE_RATE", defaultValue: "5", purpose: "writes a second one user may sustain")
    static let addressBurst = EnvironmentSetting(
        variable: "WIDGETBUS_GATEWAY_ADDRESS_BURST", defaultValue: "200", purpose: "requests one client address may send at once, before authentication")
    static let addressRate = EnvironmentSetting(
        variable: "WIDGETBUS_GATEWAY_ADDRESS_RATE", defaultValue: "100", purpose: "requests a second one client address may sustain")
    static let connections = EnvironmentSetting(
        variable: "WIDGETBUS_GATEWAY_MAX_CONNECTIONS", defaultValue: "20000", purpose: "open connections at most; more wait in the listen backlog")
    static let idle = EnvironmentSetting(
        variable: "WIDGETBUS_GATEWAY_IDLE_TIMEOUT_S", defaultValue: "30", purpose: "seconds a connection with no request may stay open")
    static let busTimeout = EnvironmentSetting(
        variable: "WIDGETBUS_GATEWAY_BUS_TIMEOUT_MS", defaultValue: "3000", purpose: "milliseconds a request waits for the bus before 503")

    static let all: [EnvironmentSetting] = [
        listen, certificate, privateKey, IssuersFile.setting, leeway, writeBurst, writeRate, addressBurst, addressRate, connections, idle,
        busTimeout, .snapshotDirectory,
    ]

    init(environment: [String: String]) throws(InvalidSetting) {
        let (host, port) = try Self.listen.hostAndPort(Self.listen.resolve(in: environment), example: "127.0.0.1:8443")
        (self.host, self.port) = (host, port)
        switch (environment[Self.certificate.variable].flatMap { $0.isEmpty ? nil : $0 }, environment[Self.privateKey.variable].flatMap { $0.isEmpty ? nil : $0 }) {
        case (let certificate?, let key?):
            do {
                tls = TLSConfiguration.makeServerConfiguration(
                    certificateChain: try NIOSSLCertificate.fromPEMFile(certificate).map { .certificate($0) },
                    privateKey: .privateKey(try NIOSSLPrivateKey(file: key, format: .pem)))
            } catch {
                throw InvalidSetting("\(Self.certificate.variable)/\(Self.privateKey.variable): cannot read \(certificate) and \(key) as PEM: \(error)")
            }
        case (nil, nil):
            tls = nil
            let insecure = try BusBinding.insecure.flag(in: environment)
            guard BusBinding.isLoopback(host) || insecure else {
                throw InvalidSetting(
                    "refusing plain HTTP on \(host): bearer tokens would cross the network in the clear. Set \(Self.certificate.variable) and "
                        + "\(Self.privateKey.variable), listen on loopback behind a TLS-terminating proxy, or set \(BusBinding.insecure.variable)=1")
            }
        default:
            throw InvalidSetting("set both \(Self.certificate.variable) and \(Self.privateKey.variable), or neither")
        }
        tokenLeeway = try Self.leeway.seconds(in: environment, range: 0...60)
        writes = RateLimiter.Limit(
            burst: try Self.writeBurst.integer(in: environment, range: 1...100_000),
            rate: Double(try Self.writeRate.integer(in: environment, range: 1...100_000)))
        addresses = RateLimiter.Limit(
            burst: try Self.addressBurst.integer(in: environment, range: 1...1_000_000),
            rate: Double(try Self.addressRate.integer(in: environment, range: 1...1_000_000)))
        maxConnections = try Self.connections.integer(in: environment, range: 1...1_000_000)
        idleTimeout = try Self.idle.seconds(in: environment, range: 1...3_600)
        limits = GatewayAPI.Limits()
        limits.busPatience = .milliseconds(try Self.busTimeout.integer(in: environment, range: 100...60_000))
        snapshotRoot = EnvironmentSetting.snapshotDirectory.resolve(in: environment)
    }
}
