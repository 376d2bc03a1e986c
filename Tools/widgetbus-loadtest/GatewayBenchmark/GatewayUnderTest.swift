import AsyncHTTPClient
import Crypto
import FakeAPNs
import Foundation
import NIOCore
import NIOSSL

#if canImport(Glibc)
import Glibc
#endif

/// The token issuer app-gateway trusts in the benchmark: a P-256 key made for the run, its JWKS
/// in the issuers file, and ES256 tokens signed here with swift-crypto (the loadtest target does
/// not link AppGatewayIdentity, so this is `IssuerSigningKey.sign`'s JWS compact form, written
/// out: header and claims sorted, the raw r ‖ s signature).
struct BenchIssuer: Sendable {
    static let issuer = "https://bench.widgetbus.local"
    static let audience = "widgetbus-app"
    static let alias = "bench"
    static let kid = "bench-key"

    let key = P256.Signing.PrivateKey()

    /// The public key as a JWKS document, named ``kid``.
    var jwks: String {
        let point = key.publicKey.x963Representation.dropFirst()
        let x = Data(point.prefix(32)).base64URL, y = Data(point.suffix(32)).base64URL
        return #"{"keys":[{"alg":"ES256","crv":"P-256","kid":"\#(Self.kid)","kty":"EC","x":"\#(x)","y":"\#(y)"}]}"#
    }

    /// The issuers file naming `jwksFile` (relative to the issuers file's folder).
    func issuersFile(jwksFile: String) -> String {
        #"{"issuers":[{"issuer":"\#(Self.issuer)","alias":"\#(Self.alias)","audiences":["\#(Self.audience)"],"algorithms":["ES256"],"jwksFile":"\#(jwksFile)"}]}"#
    }

    /// A token for `subject` (letters, digits and `-` only: it is written into the JSON as is),
    /// valid for `lifetime` seconds.
    func token(subject: String, lifetime: Int = 4 * 3_600) throws -> String {
        let now = Int(Date().timeIntervalSince1970)
        let header = #"{"alg":"ES256","kid":"\#(Self.kid)","typ":"JWT"}"#
        let claims = #"{"aud":"\#(Self.audience)","exp":\#(now + lifetime),"iat":\#(now),"iss":"\#(Self.issuer)","sub":"\#(subject)"}"#
        let input = Data(header.utf8).base64URL + "." + Data(claims.utf8).base64URL
        return input + "." + (try key.signature(for: Data(input.utf8)).rawRepresentation).base64URL
    }

    /// The bus user id a token for `subject` proves (`BusUserID`: alias, `:`, the subject, which
    /// needs no percent-encoding here).
    static func user(_ subject: String) -> String { alias + ":" + subject }
}

extension Data {
    /// Base64url without padding (RFC 7515 §2).
    fileprivate var base64URL: String {
        base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

/// The files every gateway of the run is started with: a test CA and a `localhost` certificate
/// it signed (``LocalhostCertificates``), and the issuers file with its JWKS.
struct GatewayFiles: Sendable {
    let directory: URL
    let certificates: LocalhostCertificates
    let issuer: BenchIssuer

    init(directory: URL) throws {
        self.directory = directory
        certificates = try LocalhostCertificates()
        issuer = BenchIssuer()
        try certificates.serverCertificatePEM.write(to: certificate, atomically: true, encoding: .utf8)
        try certificates.serverKeyPEM.write(to: privateKey, atomically: true, encoding: .utf8)
        try issuer.jwks.write(to: directory.appendingPathComponent("issuer.jwks.json"), atomically: true, encoding: .utf8)
        try issuer.issuersFile(jwksFile: "issuer.jwks.json").write(to: issuers, atomically: true, encoding: .utf8)
    }

    var certificate: URL { directory.appendingPathComponent("tls.crt") }
    var privateKey: URL { directory.appendingPathComponent("tls.key") }
    var issuers: URL { directory.appendingPathComponent("issuers.json") }
}

/// One app-gateway process started by the benchmark: HTTPS (HTTP/2 and HTTP/1.1 by ALPN) with the
/// run's certificate, or plain HTTP/1.1 on loopback (behind-a-proxy mode), on a free port.
final class GatewayUnderTest: @unchecked Sendable {
    enum Transport: String, Codable, Sendable {
        case tls
        case plain
    }

    let transport: Transport
    let port: Int
    let process: Process
    let log: URL

    /// Starts the gateway beside this executable with `environment` (the bus's endpoints) and the
    /// benchmark's limits, and waits until `/healthz` answers.
    init(transport: Transport, files: GatewayFiles, environment: [String: String], name: String) throws {
        self.transport = transport
        port = try PlayedOwners.freeLoopbackPort()
        var environment = environment
        environment["WIDGETBUS_GATEWAY_LISTEN"] = "127.0.0.1:\(port)"
        environment["WIDGETBUS_GATEWAY_ISSUERS"] = files.issuers.path
        switch transport {
        case .tls:
            environment["WIDGETBUS_GATEWAY_TLS_CERT"] = files.certificate.path
            environment["WIDGETBUS_GATEWAY_TLS_KEY"] = files.privateKey.path
        case .plain:
            environment["WIDGETBUS_GATEWAY_TLS_CERT"] = nil
            environment["WIDGETBUS_GATEWAY_TLS_KEY"] = nil
        }
        for (variable, value) in Self.limits where environment[variable] == nil { environment[variable] = value }
        environment["WIDGETBUS_LOG_LEVEL"] = environment["WIDGETBUS_GATEWAY_BENCH_LOG_LEVEL"] ?? "warning"
        environment["WIDGETBUS_HTTP_LISTEN"] = nil
        log = files.directory.appendingPathComponent("\(name).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let output = try FileHandle(forWritingTo: log)
        process = Process()
        process.executableURL = Self.executable
        process.environment = environment
        process.standardOutput = output
        process.standardError = output
        try process.run()
        try waitUntilHealthy()
    }

    /// The limits the benchmark runs with: high enough never to refuse its load. The writes'
    /// bucket takes at most 100,000 (GatewaySettings refuses more at start, exit 78).
    static let limits: [(String, String)] = [
        ("WIDGETBUS_GATEWAY_WRITE_BURST", "100000"), ("WIDGETBUS_GATEWAY_WRITE_RATE", "100000"),
        ("WIDGETBUS_GATEWAY_ADDRESS_BURST", "1000000"), ("WIDGETBUS_GATEWAY_ADDRESS_RATE", "1000000"),
        ("WIDGETBUS_GATEWAY_MAX_CONNECTIONS", "20000"),
    ]

    /// app-gateway beside this executable (`swift build` puts the products in one folder), or in
    /// `WIDGETBUS_BIN_DIR`.
    static var executable: URL {
        if let directory = ProcessInfo.processInfo.environment["WIDGETBUS_BIN_DIR"] {
            return URL(fileURLWithPath: directory).appendingPathComponent("app-gateway")
        }
        return URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("app-gateway")
    }

    var pid: Int32 { process.processIdentifier }
    var baseURL: String { transport == .tls ? "https://localhost:\(port)" : "http://127.0.0.1:\(port)" }

    /// SIGTERM, then SIGKILL if it has not ended within `patience`.
    func stop(patience: Duration = .seconds(20)) {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = ContinuousClock.now + patience
        while process.isRunning, ContinuousClock.now < deadline { usleep(20_000) }
        if process.isRunning {
            kill(pid, SIGKILL)
            process.waitUntilExit()
        }
    }

    var cpuSeconds: Double { ProcessFigures.cpuSeconds(of: pid) ?? 0 }
    var residentKilobytes: Int { ProcessFigures.residentKilobytes(of: pid) ?? 0 }
    var residentFileKilobytes: Int { ProcessFigures.residentKilobytes(of: pid, field: "RssFile") ?? 0 }

    private func waitUntilHealthy() throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            guard process.isRunning else {
                throw ValidationFailure(
                    "app-gateway ended at start (status \(process.terminationStatus)): "
                        + ((try? String(contentsOf: log, encoding: .utf8)) ?? ""))
            }
            if let status = try? ProcessFigures.httpStatus(host: "127.0.0.1", port: port, tls: transport == .tls, path: "/healthz"),
                status == 200
            {
                return
            }
            usleep(100_000)
        }
        throw ValidationFailure("app-gateway did not answer /healthz within 30 s")
    }
}

/// What `/proc` says of a process: CPU seconds, resident memory.
enum ProcessFigures {
    /// utime + stime of `/proc/<pid>/stat` in seconds (fields 14 and 15, counted after the
    /// parenthesised command name).
    static func cpuSeconds(of pid: Int32) -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else {
            return nil
        }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    static var ownCPUSeconds: Double { cpuSeconds(of: getpid()) ?? 0 }

    /// `VmRSS` of `/proc/<pid>/status`, in kB; `RssFile` for the part of it that is pages of
    /// files: the code of the executable and its libraries, which the kernel maps and may drop.
    static func residentKilobytes(of pid: Int32, field: String = "VmRSS") -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") })
        else { return nil }
        return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
    }

    /// The status of one `GET path`, with curl (no client state kept): how the benchmark learns
    /// that a gateway it started is up.
    static func httpStatus(host: String, port: Int, tls: Bool, path: String) throws -> Int? {
        let curl = Process()
        curl.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let url = tls ? "https://localhost:\(port)\(path)" : "http://\(host):\(port)\(path)"
        curl.arguments = ["curl", "-s", "-k", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "2", url]
        let output = Pipe()
        curl.standardOutput = output
        curl.standardError = FileHandle.nullDevice
        try curl.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        curl.waitUntilExit()
        return Int(String(decoding: data, as: UTF8.self))
    }

    /// `/proc/loadavg`'s three averages.
    static var loadAverage: String {
        ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "").split(separator: " ").prefix(3).joined(separator: " ")
    }
}

/// HTTP clients of the benchmark: async-http-client on its singleton event loops (one per core),
/// trusting the run's CA.
enum BenchHTTPClients {
    static func make(
        caPEM: String, version: HTTPClient.Configuration.HTTPVersion, http1Connections: Int = 8, readTimeout: TimeAmount? = .seconds(30)
    ) throws -> HTTPClient {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates([try NIOSSLCertificate(bytes: Array(caPEM.utf8), format: .pem)])
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
        configuration.httpVersion = version
        configuration.timeout = .init(connect: .seconds(60), read: readTimeout)
        configuration.connectionPool = .init(idleTimeout: .seconds(600), concurrentHTTP1ConnectionsPerHostSoftLimit: http1Connections)
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    static func shutdown(_ clients: [HTTPClient]) async {
        for client in clients { try? await client.shutdown() }
    }
}

/// Runs async work from the synchronous command and waits for it: the command runs on the main
/// thread (the loadtest's root command is synchronous), the work on the concurrency pool and
/// async-http-client's event loops.
func waitFor<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let outcome = Locked<Result<T, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
        do {
            let value = try await body()
            outcome.withLock { $0 = .success(value) }
        } catch {
            outcome.withLock { $0 = .failure(error) }
        }
        done.signal()
    }
    done.wait()
    return try outcome.withLock { $0! }.get()
}

/// A value shared between threads and tasks, behind a lock.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

extension Double {
    /// This number with `digits` decimals, as text.
    func text(_ digits: Int) -> String { String(format: "%.\(digits)f", self) }
}
