import Foundation
import NIOSSL
import PostgresNIO

/// A `postgres://` / `postgresql://` connection URL (the form Supabase hands out), read into a
/// ``PostgresClient/Configuration``.
///
/// `postgres://user:password@host:port/database?sslmode=require&sslrootcert=/path/ca.pem`:
/// user and password may be percent-encoded; the port defaults to 5432 and the database to the
/// user's name. `sslmode` follows libpq: `disable`; `allow`/`prefer` (the default: TLS when the
/// server offers it, unverified); `require` (TLS, unverified — verified against `sslrootcert`
/// when one is given, as libpq does); `verify-ca` (certificate chain checked); `verify-full`
/// (chain and host name checked). `sslrootcert` is a PEM file of trusted roots, or `system`.
/// `application_name` is passed to the server; other parameters are ignored (and reported).
/// sync-agent's target and intent-handler's state store both read their URL here.
public struct PostgresURL: Equatable, Sendable {
    public enum SSLMode: String, CaseIterable, Sendable {
        case disable, allow, prefer, require
        case verifyCA = "verify-ca"
        case verifyFull = "verify-full"
    }

    public struct Invalid: Error, CustomStringConvertible {
        public let description: String
    }

    public var host: String
    public var port: Int
    public var user: String
    public var password: String?
    public var database: String
    public var sslMode: SSLMode
    public var sslRootCertificate: String?
    public var applicationName: String?
    /// Query parameters this reader does not use.
    public var ignoredParameters: [String]

    public static func isPostgres(_ url: String) -> Bool {
        url.hasPrefix("postgres://") || url.hasPrefix("postgresql://")
    }

    public init(_ text: String) throws {
        guard Self.isPostgres(text), let components = URLComponents(string: text) else {
            throw Invalid(description: "not a postgres:// or postgresql:// URL")
        }
        guard let host = components.host, !host.isEmpty else { throw Invalid(description: "the URL has no host") }
        self.host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        port = components.port ?? 5432
        guard let user = components.percentEncodedUser?.removingPercentEncoding, !user.isEmpty else {
            throw Invalid(description: "the URL has no user")
        }
        self.user = user
        password = components.percentEncodedPassword?.removingPercentEncoding
        let path = String(components.percentEncodedPath.drop { $0 == "/" }).removingPercentEncoding ?? ""
        database = path.isEmpty ? user : path
        sslMode = .prefer
        ignoredParameters = []
        for item in components.queryItems ?? [] {
            switch item.name {
            case "sslmode":
                guard let mode = SSLMode(rawValue: item.value ?? "") else {
                    throw Invalid(description: "sslmode must be one of \(SSLMode.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                sslMode = mode
            case "sslrootcert":
                sslRootCertificate = item.value
            case "application_name":
                applicationName = item.value
            default:
                ignoredParameters.append(item.name)
            }
        }
    }

    /// The URL without its password, for logs.
    public var redacted: String {
        "postgres://\(user)@\(host.contains(":") ? "[\(host)]" : host):\(port)/\(database)?sslmode=\(sslMode.rawValue)"
    }

    public func clientConfiguration(connectTimeout: Duration, maximumConnections: Int) throws -> PostgresClient.Configuration {
        var configuration = PostgresClient.Configuration(
            host: host, port: port, username: user, password: password, database: database,
            tls: try tls(disable: .disable, prefer: { .prefer($0) }, require: { .require($0) }))
        configuration.options.connectTimeout = connectTimeout
        configuration.options.maximumConnections = max(1, maximumConnections)
        if let applicationName {
            configuration.options.additionalStartupParameters.append(("application_name", applicationName))
        }
        return configuration
    }

    /// The same settings for a single connection, which takes a TLS context made from them.
    public func connectionConfiguration() throws -> PostgresConnection.Configuration {
        var configuration = PostgresConnection.Configuration(
            host: host, port: port, username: user, password: password, database: database,
            tls: try tls(
                disable: .disable, prefer: { .prefer(try NIOSSLContext(configuration: $0)) },
                require: { .require(try NIOSSLContext(configuration: $0)) }))
        if let applicationName {
            configuration.options.additionalStartupParameters.append(("application_name", applicationName))
        }
        return configuration
    }

    /// What `sslMode` asks of a connection, before any file is read.
    public struct TLSPolicy: Equatable, Sendable {
        public enum Use: Equatable, Sendable {
            /// Plain TCP.
            case never
            /// TLS when the server offers it, plain otherwise.
            case whenOffered
            /// TLS or no connection.
            case always
        }

        /// What of the server's certificate is checked.
        public enum Verification: Equatable, Sendable {
            case nothing
            case chain
            case chainAndHostName
        }

        public var use: Use
        public var verification: Verification
    }

    /// libpq's rules: `disable` never; `allow`/`prefer` when offered, unverified; `require`
    /// always, unverified unless a root certificate is given (then the chain is checked, not the
    /// host name); `verify-ca` the chain; `verify-full` the chain and the host name.
    public var tlsPolicy: TLSPolicy {
        switch sslMode {
        case .disable: TLSPolicy(use: .never, verification: .nothing)
        case .allow, .prefer: TLSPolicy(use: .whenOffered, verification: .nothing)
        case .require: TLSPolicy(use: .always, verification: sslRootCertificate == nil ? .nothing : .chain)
        case .verifyCA: TLSPolicy(use: .always, verification: .chain)
        case .verifyFull: TLSPolicy(use: .always, verification: .chainAndHostName)
        }
    }

    /// The TLS setting of either configuration: `disable`, or `prefer` or `require` with the
    /// TLS configuration `sslMode` and `sslrootcert` ask for.
    private func tls<TLS>(disable: TLS, prefer: (TLSConfiguration) throws -> TLS, require: (TLSConfiguration) throws -> TLS) throws -> TLS {
        var tls = TLSConfiguration.makeClientConfiguration()
        if let root = sslRootCertificate, root != "system" {
            guard FileManager.default.isReadableFile(atPath: root) else {
                throw Invalid(description: "sslrootcert \(root) is not a readable file")
            }
            tls.trustRoots = .file(root)
        }
        let policy = tlsPolicy
        switch policy.verification {
        case .nothing: tls.certificateVerification = .none
        case .chain: tls.certificateVerification = .noHostnameVerification
        case .chainAndHostName: tls.certificateVerification = .fullVerification
        }
        switch policy.use {
        case .never: return disable
        case .whenOffered: return try prefer(tls)
        case .always: return try require(tls)
        }
    }
}
