import Foundation
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
struct PostgresURL: Equatable, Sendable {
    enum SSLMode: String, CaseIterable, Sendable {
        case disable, allow, prefer, require
        case verifyCA = "verify-ca"
        case verifyFull = "verify-full"
    }

    struct Invalid: Error, CustomStringConvertible {
        let description: String
    }

    var host: String
    var port: Int
    var user: String
    var password: String?
    var database: String
    var sslMode: SSLMode
    var sslRootCertificate: String?
    var applicationName: String?
    /// Query parameters this reader does not use.
    var ignoredParameters: [String]

    static func isPostgres(_ url: String) -> Bool {
        url.hasPrefix("postgres://") || url.hasPrefix("postgresql://")
    }

    init(_ text: String) throws {
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
    var redacted: String {
        "postgres://\(user)@\(host.contains(":") ? "[\(host)]" : host):\(port)/\(database)?sslmode=\(sslMode.rawValue)"
    }

    func clientConfiguration(connectTimeout: Duration, maximumConnections: Int) throws -> PostgresClient.Configuration {
        var configuration = PostgresClient.Configuration(
            host: host, port: port, username: user, password: password, database: database, tls: try tls())
        configuration.options.connectTimeout = connectTimeout
        configuration.options.maximumConnections = max(1, maximumConnections)
        if let applicationName {
            configuration.options.additionalStartupParameters.append(("application_name", applicationName))
        }
        return configuration
    }

    /// What `sslMode` asks of a connection, before any file is read.
    struct TLSPolicy: Equatable {
        enum Use: Equatable {
            /// Plain TCP.
            case never
            /// TLS when the server offers it, plain otherwise.
            case whenOffered
            /// TLS or no connection.
            case always
        }

        /// What of the server's certificate is checked.
        enum Verification: Equatable {
            case nothing
            case chain
            case chainAndHostName
        }

        var use: Use
        var verification: Verification
    }

    /// libpq's rules: `disable` never; `allow`/`prefer` when offered, unverified; `require`
    /// always, unverified unless a root certificate is given (then the chain is checked, not the
    /// host name); `verify-ca` the chain; `verify-full` the chain and the host name.
    var tlsPolicy: TLSPolicy {
        switch sslMode {
        case .disable: TLSPolicy(use: .never, verification: .nothing)
        case .allow, .prefer: TLSPolicy(use: .whenOffered, verification: .nothing)
        case .require: TLSPolicy(use: .always, verification: sslRootCertificate == nil ? .nothing : .chain)
        case .verifyCA: TLSPolicy(use: .always, verification: .chain)
        case .verifyFull: TLSPolicy(use: .always, verification: .chainAndHostName)
        }
    }

    private func tls() throws -> PostgresClient.Configuration.TLS {
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
        case .never: return .disable
        case .whenOffered: return .prefer(tls)
        case .always: return .require(tls)
        }
    }
}
