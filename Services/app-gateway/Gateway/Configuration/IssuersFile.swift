import AppGatewayIdentity
import Foundation
import Logging
import ServiceSupport

/// The issuers app-gateway trusts, read from the JSON file `WIDGETBUS_GATEWAY_ISSUERS` names
/// (docs/API.md, "Configuring issuers"):
///
/// ```json
/// {"issuers": [
///   {"issuer": "https://appleid.apple.com", "alias": "apple", "audiences": ["com.example.app"],
///    "algorithms": ["RS256"], "jwksURL": "https://appleid.apple.com/auth/keys"},
///   {"issuer": "https://auth.example.com", "alias": "app", "audiences": ["widgetbus"],
///    "algorithms": ["ES256"], "jwksFile": "app-issuer.jwks.json"}
/// ]}
/// ```
///
/// Each issuer has exactly one of `jwksFile` (read once; relative to the file's folder) and
/// `jwksURL` (``RemoteSigningKeySource``). A file in a list is one reviewable change, where a
/// variable per field would scatter an issuer over many settings.
struct IssuersFile: Decodable {
    struct Issuer: Decodable {
        var issuer: String
        var alias: String
        var audiences: [String]
        var algorithms: [String]
        var jwksFile: String?
        var jwksURL: String?
    }

    var issuers: [Issuer]

    static let setting = EnvironmentSetting(
        variable: "WIDGETBUS_GATEWAY_ISSUERS", defaultValue: "none: required",
        purpose: "JSON file of the token issuers app-gateway trusts (issuer, alias, audiences, algorithms, jwksFile or jwksURL)")

    /// The trusted issuers of the file `environment` names.
    ///
    /// - Throws: ``InvalidSetting`` naming what is wrong: no file, not the schema, an issuer the
    ///   identity model refuses, a JWKS file that cannot be read or holds unusable keys.
    static func trustedIssuers(in environment: [String: String], logger: Logger) async throws(InvalidSetting) -> [TrustedIssuer] {
        guard let path = environment[setting.variable], !path.isEmpty else {
            throw InvalidSetting("\(setting.variable) must name the issuers file: app-gateway proves every user with a token of a trusted issuer")
        }
        let file: IssuersFile
        do {
            file = try JSONDecoder().decode(IssuersFile.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw InvalidSetting("\(setting.variable)=\(path): cannot be read as an issuers file: \(error)")
        }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        var trusted: [TrustedIssuer] = []
        for entry in file.issuers {
            do {
                let keys: any SigningKeySource
                switch (entry.jwksFile, entry.jwksURL) {
                case (let file?, nil):
                    let url = file.hasPrefix("/") ? URL(fileURLWithPath: file) : folder.appendingPathComponent(file)
                    let json: Data
                    do {
                        json = try Data(contentsOf: url)
                    } catch {
                        throw IdentityConfigurationError("jwksFile \(url.path) cannot be read: \(error.localizedDescription)")
                    }
                    keys = try await InMemorySigningKeySource(jwks: json)
                case (nil, let text?):
                    guard let url = URL(string: text) else { throw IdentityConfigurationError("jwksURL \(text) is not a URL") }
                    let source = try RemoteSigningKeySource(url: url, logger: logger)
                    await source.refresh()
                    keys = source
                default:
                    throw IdentityConfigurationError("give exactly one of jwksFile and jwksURL")
                }
                var algorithms: Set<SigningAlgorithm> = []
                for name in entry.algorithms {
                    guard let algorithm = SigningAlgorithm(rawValue: name) else {
                        throw IdentityConfigurationError(
                            "algorithm \(name) is not one of " + SigningAlgorithm.allCases.map(\.rawValue).joined(separator: ", "))
                    }
                    algorithms.insert(algorithm)
                }
                trusted.append(
                    try TrustedIssuer(
                        issuer: entry.issuer, alias: IssuerAlias(entry.alias), audiences: Set(entry.audiences), algorithms: algorithms,
                        keys: keys))
            } catch {
                throw InvalidSetting("\(setting.variable)=\(path): issuer \(entry.issuer): \(error)")
            }
        }
        return trusted
    }
}
