import Foundation
import Testing

@testable import PostgresStorage

/// Reading a `postgres://` URL as Supabase and libpq write them, in-process.
@Suite struct PostgresURLTests {
    @Test func readsEveryPartWithLibpqsDefaults() throws {
        let url = try PostgresURL("postgresql://app%40corp:p%40ss%2Fword@db.example.com:6543/widgets?application_name=agent&connect_timeout=5")
        #expect(url.user == "app@corp" && url.password == "p@ss/word")
        #expect(url.host == "db.example.com" && url.port == 6543 && url.database == "widgets")
        #expect(url.sslMode == .prefer && url.applicationName == "agent")
        #expect(url.ignoredParameters == ["connect_timeout"], "what is not used is reported, not dropped silently")
        #expect(url.redacted == "postgres://app@corp@db.example.com:6543/widgets?sslmode=prefer", "no password in what is logged")

        let short = try PostgresURL("postgres://alice@[::1]")
        #expect(short.host == "::1" && short.port == 5432 && short.database == "alice" && short.password == nil)
        #expect(short.redacted == "postgres://alice@[::1]:5432/alice?sslmode=prefer")
    }

    @Test(arguments: [
        ("disable", nil, PostgresURL.TLSPolicy(use: .never, verification: .nothing)),
        ("allow", nil, PostgresURL.TLSPolicy(use: .whenOffered, verification: .nothing)),
        ("prefer", nil, PostgresURL.TLSPolicy(use: .whenOffered, verification: .nothing)),
        ("require", nil, PostgresURL.TLSPolicy(use: .always, verification: .nothing)),
        ("require", "/etc/ssl/ca.pem", PostgresURL.TLSPolicy(use: .always, verification: .chain)),
        ("verify-ca", nil, PostgresURL.TLSPolicy(use: .always, verification: .chain)),
        ("verify-full", "system", PostgresURL.TLSPolicy(use: .always, verification: .chainAndHostName)),
    ] as [(String, String?, PostgresURL.TLSPolicy)])
    func everySSLModeAsLibpqReadsIt(mode: String, rootCertificate: String?, policy: PostgresURL.TLSPolicy) throws {
        let root = rootCertificate.map { "&sslrootcert=\($0)" } ?? ""
        let url = try PostgresURL("postgres://agent@db:5432/widgets?sslmode=\(mode)\(root)")
        #expect(url.tlsPolicy == policy)
    }

    @Test(arguments: [
        "mysql://agent@db/widgets",
        "postgres://db.example.com/widgets",
        "postgres://agent@/widgets",
        "postgres://agent@db/widgets?sslmode=maybe",
        "not a url at all",
    ])
    func aURLThatCannotBeUsedIsRefused(text: String) {
        #expect(throws: PostgresURL.Invalid.self) { try PostgresURL(text) }
    }

    @Test func anUnreadableRootCertificateIsRefusedBeforeConnecting() throws {
        let url = try PostgresURL("postgres://agent@db/widgets?sslmode=verify-full&sslrootcert=/nonexistent/ca.pem")
        #expect(throws: PostgresURL.Invalid.self) { try url.clientConfiguration(connectTimeout: .seconds(1), maximumConnections: 1) }
    }
}
