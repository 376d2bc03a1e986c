import AppGatewayIdentity
import ArgumentParser
import BusRuntime
import CommandLineText
import Foundation

/// `widgetctl token issuer|mint`: a development issuer for app-gateway, and bearer tokens from it,
/// so a developer can call the gateway as a user without running a real identity provider.
struct TokenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "For development: make an issuer key pair with its JWKS, and mint bearer tokens for app-gateway.",
        discussion: """
            These tokens are for development and tests only. In production, users' tokens come from Sign in with \
            Apple or the app backend's own issuer; an issuer made here proves whatever user its key holder says.
            """,
        subcommands: [Issuer.self, Mint.self]
    )

    struct Issuer: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a development issuer's signing key pair: NAME.private.pem (mode 0600) and NAME.jwks.json.",
            discussion: """
                For development only. NAME.private.pem is the private key as PKCS#8 PEM (for ES256 and EdDSA alike, \
                as openssl and swift-crypto read it); NAME.jwks.json is the public JWKS that app-gateway's issuer is \
                configured with. The key's kid is its RFC 7638 thumbprint. Existing files are never replaced. Prints \
                {"kid", "algorithm", "privateKeyFile", "jwksFile"} as JSON; the private key is never printed.
                """
        )

        @Option(help: "The directory to write into (created if missing).")
        var out: String

        @Option(help: "The files' name: NAME.private.pem and NAME.jwks.json.")
        var name = "dev-issuer"

        @Option(help: "The signature algorithm: ES256 (P-256) or EdDSA (Ed25519).")
        var algorithm = IssuerSigningKey.Algorithm.es256

        func validate() throws {
            guard !name.isEmpty, !name.contains("/"), !name.hasPrefix(".") else {
                throw ValidationError("--name is a plain file name, got '\(name)'")
            }
        }

        func run() throws {
            let key = IssuerSigningKey(generating: algorithm)
            let kid = key.thumbprint
            let folder = URL(fileURLWithPath: out)
            let privateFile = folder.appendingPathComponent("\(name).private.pem")
            let jwksFile = folder.appendingPathComponent("\(name).jwks.json")
            let jwks = String(decoding: try key.jwks(kid: kid), as: UTF8.self) + "\n"
            do {
                try KeyFile.createFolder(folder)
                // Both are created exclusively: an existing private key is never replaced, and when
                // the JWKS exists the private key just made is removed, so no half pair is left.
                try KeyFile.create(privateFile, mode: 0o600, contents: key.privateKeyPEM)
                do {
                    try KeyFile.create(jwksFile, mode: 0o644, contents: jwks)
                } catch {
                    try? FileManager.default.removeItem(at: privateFile)
                    throw error
                }
            } catch let failure as KeyFile.Failure {
                Console.error(failure.description)
                throw ExitCode(1)
            }
            let summary = ["kid": kid, "algorithm": key.algorithm.rawValue, "privateKeyFile": privateFile.path, "jwksFile": jwksFile.path]
            let json = try JSONSerialization.data(withJSONObject: summary, options: [.sortedKeys, .withoutEscapingSlashes])
            Console.line(String(decoding: json, as: UTF8.self))
        }
    }

    struct Mint: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a signed JWT for a user, from a development issuer's private key (one line).",
            discussion: """
                For development only. The token carries iss, aud, sub, iat and exp (and nbf with --not-before-in), \
                and its header names --kid and the key's own algorithm. A key file that cannot be read exits 1.
                """
        )

        @Option(help: "The issuer's private key file (NAME.private.pem from `token issuer`).")
        var key: String

        /// Taken whatever it begins with: a kid is a base64url thumbprint, and one in 64 begins
        /// with `-`, which would otherwise read as an option.
        @Option(parsing: .unconditional, help: "The key's kid, as in the issuer's JWKS.")
        var kid: String

        @Option(help: "The iss claim: the issuer app-gateway is configured to trust.")
        var issuer: String

        @Option(help: "The aud claim: one of the issuer's audiences in app-gateway.")
        var audience: String

        @Option(parsing: .unconditional, help: "The sub claim: the user at that issuer.")
        var subject: String

        @Option(help: "Seconds until the token expires (1–86400).")
        var ttl = 3_600

        @Option(help: "Seconds from now until the token becomes valid (0–86400; no nbf claim when omitted).")
        var notBeforeIn: Int?

        func validate() throws {
            guard (1...Self.maxSeconds).contains(ttl) else { throw ValidationError("--ttl must be within 1–\(Self.maxSeconds)") }
            if let notBeforeIn, !(0...Self.maxSeconds).contains(notBeforeIn) {
                throw ValidationError("--not-before-in must be within 0–\(Self.maxSeconds)")
            }
            for (option, value) in [("--kid", kid), ("--issuer", issuer), ("--audience", audience), ("--subject", subject)]
            where value.isEmpty {
                throw ValidationError("\(option) must not be empty")
            }
        }

        /// A day: a development token that lives longer is one nobody remembers to throw away.
        private static let maxSeconds = 86_400

        func run() throws {
            guard let text = try? String(contentsOfFile: key, encoding: .utf8) else {
                Console.error("cannot read \(key)")
                throw ExitCode(1)
            }
            guard let signingKey = IssuerSigningKey(pem: text) else {
                Console.error("\(key) holds no P-256 or Ed25519 private key in PKCS#8 PEM")
                throw ExitCode(1)
            }
            let claims = IssuedTokenClaims(
                issuer: issuer, audience: audience, subject: subject, issuedAt: Date(), lifetime: ttl, notBeforeIn: notBeforeIn)
            Console.line(try signingKey.sign(claims, kid: kid))
        }
    }
}

extension IssuerSigningKey.Algorithm: ExpressibleByArgument {}
