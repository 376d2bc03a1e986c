import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL
import Testing

/// app-gateway's development certificate and issuer as `scripts/gateway-dev-keys.sh` makes them for
/// docker compose and the local runner, tokens minted from it with `widgetctl token mint` and
/// requests sent trusting its certificate: what a developer does by hand, done by the same tools.
struct GatewayDevKeys {
    static let issuer = "https://dev.widgetbus.local"
    static let audience = "widgetbus-app"
    static let alias = "dev"
    static let widgetctl = BusFixture.productsDirectory.appendingPathComponent("widgetctl")

    let directory: URL

    /// The keys already in `directory` (the local runner makes its own on `up`).
    init(in directory: URL) {
        self.directory = directory
    }

    /// Runs the script, with the built widgetctl, to make the keys in `directory`.
    static func make(in directory: URL) throws -> GatewayDevKeys {
        let made = try runScript(directory)
        guard made.status == 0 else { throw FixtureError.commandFailed(made) }
        return GatewayDevKeys(in: directory)
    }

    /// `scripts/gateway-dev-keys.sh DIR` as run from a shell, whatever it answers.
    static func runScript(_ directory: URL) throws -> CommandResult {
        let script = DeploymentConfigurationTests.repository.appendingPathComponent("scripts/gateway-dev-keys.sh")
        return try runCommand(
            URL(fileURLWithPath: "/bin/bash"), [script.path, directory.path],
            environment: ["PATH": "/usr/bin:/bin", "WIDGETCTL": widgetctl.path])
    }

    func file(_ name: String) -> URL { directory.appendingPathComponent(name) }

    /// What app-gateway reads to serve HTTPS with these keys and trust their issuer.
    var environment: [String: String] {
        [
            "WIDGETBUS_GATEWAY_TLS_CERT": file("tls.crt").path, "WIDGETBUS_GATEWAY_TLS_KEY": file("tls.key").path,
            "WIDGETBUS_GATEWAY_ISSUERS": file("issuers.json").path,
        ]
    }

    /// The kid of the issuer's one key, from its JWKS.
    func kid() throws -> String {
        let jwks = try JSONSerialization.jsonObject(with: Data(contentsOf: file("dev-issuer.jwks.json"))) as? [String: Any]
        let keys = jwks?["keys"] as? [[String: Any]]
        return try #require(keys?.first?["kid"] as? String, "the JWKS names its key")
    }

    /// A token for `subject`, minted as deploy/README.md says to.
    func token(_ subject: String) throws -> String {
        let minted = try runCommand(
            Self.widgetctl,
            [
                "token", "mint", "--key", file("dev-issuer.private.pem").path, "--kid", try kid(), "--issuer", Self.issuer,
                "--audience", Self.audience, "--subject", subject,
            ], environment: [:])
        guard minted.status == 0 else { throw FixtureError.commandFailed(minted) }
        return minted.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// An HTTP client that trusts the development certificate, and nothing else.
    func client() throws -> HTTPClient {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(file("tls.crt").path))
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
        configuration.timeout = .init(connect: .seconds(5), read: .seconds(30))
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// One request, waited for: its status and body.
    static func request(
        _ client: HTTPClient, _ method: HTTPMethod, _ url: String, token: String? = nil, body: String? = nil
    ) throws -> (status: Int, body: String) {
        var headers = HTTPHeaders()
        if let token { headers.add(name: "Authorization", value: "Bearer \(token)") }
        if body != nil { headers.add(name: "Content-Type", value: "application/json") }
        let request = try HTTPClient.Request(url: url, method: method, headers: headers, body: body.map { .string($0) })
        let response = try client.execute(request: request).wait()
        return (Int(response.status.code), response.body.map { String(buffer: $0) } ?? "")
    }
}
