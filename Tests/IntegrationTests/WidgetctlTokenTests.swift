import AppGatewayIdentity
import Foundation
import Testing

/// `widgetctl token`, the real binary: an issuer's files as app-gateway will be given them, and
/// tokens from it that AppGatewayIdentity's verifier accepts (or refuses once expired).
@Suite("widgetctl token")
struct WidgetctlTokenTests {
    static let issuer = "https://dev.widgetbus.example"
    static let audience = "widgetbus-app"

    @Test("issuer writes a 0600 private key and a JWKS; mint's token verifies, and expires", arguments: ["ES256", "EdDSA"])
    func issuerAndMint(algorithm: String) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("token-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let keys = folder.appendingPathComponent("keys/dev").path

        let made = try Self.widgetctl("token", "issuer", "--out", keys, "--name", "dev", "--algorithm", algorithm)
        #expect(made.status == 0, "\(made.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: made.stdoutData) as? [String: String], "\(made.stdout)")
        let kid = try #require(summary["kid"])
        #expect(summary == ["kid": kid, "algorithm": algorithm, "privateKeyFile": "\(keys)/dev.private.pem", "jwksFile": "\(keys)/dev.jwks.json"])
        #expect(try Self.mode(of: "\(keys)/dev.private.pem") == 0o600, "the private key is its owner's alone")
        #expect(try Self.mode(of: keys) == 0o755)
        let privateKey = try String(contentsOfFile: "\(keys)/dev.private.pem", encoding: .utf8)
        let keyBody = privateKey.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        #expect(privateKey.hasPrefix("-----BEGIN PRIVATE KEY-----") && keyBody.count >= 40)
        #expect(!(made.stdout + made.stderr).contains(keyBody), "the private key is never printed")

        let jwks = try Data(contentsOf: URL(fileURLWithPath: "\(keys)/dev.jwks.json"))
        let verifier = try IdentityVerifier(issuers: [
            TrustedIssuer(
                issuer: Self.issuer, alias: IssuerAlias("dev"), audiences: [Self.audience], algorithms: [.es256, .edDSA],
                keys: await InMemorySigningKeySource(jwks: jwks))
        ])

        let minted = try Self.widgetctl(
            "token", "mint", "--key", "\(keys)/dev.private.pem", "--kid", kid, "--issuer", Self.issuer, "--audience", Self.audience,
            "--subject", "pat/1")
        #expect(minted.status == 0 && minted.lines.count == 1, "\(minted.status) \(minted.stdout) \(minted.stderr)")
        let identity = try await verifier.verify(authorizationHeader: "Bearer \(minted.stdout.trimmingCharacters(in: .newlines))", now: Date())
        #expect(identity.userID == "dev:pat%2F1" && identity.subject == "pat/1")
        #expect(abs(identity.expiresAt.timeIntervalSinceNow - 3_600) < 60, "--ttl is 3600 s by default")

        let brief = try Self.widgetctl(
            "token", "mint", "--key", "\(keys)/dev.private.pem", "--kid", kid, "--issuer", Self.issuer, "--audience", Self.audience,
            "--subject", "pat", "--ttl", "1")
        let header = "Bearer \(brief.stdout.trimmingCharacters(in: .newlines))"
        #expect(try await verifier.verify(authorizationHeader: header, now: Date()).userID == "dev:pat")
        await #expect(throws: IdentityRefusal.expired, "1 s, then past the 60 s leeway") {
            try await verifier.verify(authorizationHeader: header, now: Date() + 70)
        }

        let again = try Self.widgetctl("token", "issuer", "--out", keys, "--name", "dev", "--algorithm", algorithm)
        #expect(again.status == 1 && again.stderr.contains("File exists") && again.stdout.isEmpty, "\(again.status) \(again.stderr)")
        #expect(try String(contentsOfFile: "\(keys)/dev.private.pem", encoding: .utf8) == privateKey, "the key is not replaced")
        #expect(try Data(contentsOf: URL(fileURLWithPath: "\(keys)/dev.jwks.json")) == jwks)
    }

    @Test("mint takes a kid and a subject that begin with a dash, as one kid in 64 does", .blockingThreads)
    func mintTakesValuesThatBeginWithADash() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("token-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let made = try Self.widgetctl("token", "issuer", "--out", folder.path, "--name", "dev")
        #expect(made.status == 0, "\(made.stderr)")
        let minted = try Self.widgetctl(
            "token", "mint", "--key", "\(folder.path)/dev.private.pem", "--kid", "-Xy_9", "--issuer", Self.issuer,
            "--audience", Self.audience, "--subject", "-pat")
        #expect(minted.status == 0, "\(minted.stderr)")
        let parts = minted.stdout.trimmingCharacters(in: .newlines).split(separator: ".").map { part -> [String: Any] in
            var base64 = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
            return (Data(base64Encoded: base64).flatMap { try? JSONSerialization.jsonObject(with: $0) } as? [String: Any]) ?? [:]
        }
        #expect(parts.count == 3 && parts[0]["kid"] as? String == "-Xy_9" && parts[1]["sub"] as? String == "-pat", "\(minted.stdout)")
    }

    @Test("mint refuses a missing key file (exit 1) and a TTL out of range (exit 64)", .blockingThreads)
    func mintRefusals() throws {
        let common = ["--kid", "k", "--issuer", Self.issuer, "--audience", Self.audience, "--subject", "pat"]
        let missing = try Self.widgetctl(["token", "mint", "--key", "/nonexistent/dev.private.pem"] + common)
        #expect(missing.status == 1 && missing.stderr.contains("/nonexistent/dev.private.pem") && missing.stdout.isEmpty, "\(missing.status) \(missing.stderr)")
        for ttl in ["0", "86401"] {
            let usage = try Self.widgetctl(["token", "mint", "--key", "/nonexistent/dev.private.pem", "--ttl", ttl] + common)
            #expect(usage.status == 64 && usage.stderr.contains("--ttl"), "\(usage.status) \(usage.stderr)")
        }
        let help = try Self.widgetctl("token", "--help")
        #expect(help.status == 0 && help.stdout.contains("development"), "the help says these tokens are for development")
    }

    private static func widgetctl(_ arguments: String...) throws -> CommandResult { try widgetctl(arguments) }

    private static func widgetctl(_ arguments: [String]) throws -> CommandResult {
        try runCommand(
            BusFixture.productsDirectory.appendingPathComponent("widgetctl"), arguments, environment: ProcessInfo.processInfo.environment)
    }

    private static func mode(of path: String) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }
}
