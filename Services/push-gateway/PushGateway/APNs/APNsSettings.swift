import Foundation
import Logging
import NIOSSL
import ServiceLifecycle
import ServiceSupport

/// How push-gateway reaches APNs, from its environment: `dry-run` (the default: every push is
/// logged, none is sent) until an operator gives it a key and says `send`.
public enum APNsSettings {
    public static let mode = EnvironmentSetting(
        variable: "WIDGETBUS_APNS_MODE", defaultValue: "dry-run",
        purpose: "dry-run (log each push, send none) or send (to APNs, with the key below)")
    public static let keyFile = EnvironmentSetting(
        variable: "WIDGETBUS_APNS_KEY_FILE", defaultValue: "",
        purpose: "the .p8 signing key Apple issued for APNs (PKCS#8 PEM); needed to send")
    public static let keyID = EnvironmentSetting(
        variable: "WIDGETBUS_APNS_KEY_ID", defaultValue: "", purpose: "the key's id (10 characters); needed to send")
    public static let teamID = EnvironmentSetting(
        variable: "WIDGETBUS_APNS_TEAM_ID", defaultValue: "", purpose: "the Apple developer team id; needed to send")
    public static let topic = EnvironmentSetting(
        variable: "WIDGETBUS_APNS_TOPIC", defaultValue: "",
        purpose: "apns-topic of widget pushes: the app's bundle id followed by .push-type.widgets; needed to send")
    public static let sandboxURL = EnvironmentSetting(
        variable: "WIDGETBUS_APNS_SANDBOX_URL", defaultValue: "https://api.sandbox.push.apple.com",
        purpose: "APNs for sandbox tokens (development builds)")
    public static let productionURL = EnvironmentSetting(
        variable: "WIDGETBUS_APNS_PRODUCTION_URL", defaultValue: "https://api.push.apple.com",
        purpose: "APNs for production tokens (App Store and TestFlight builds)")
    public static let caFile = EnvironmentSetting(
        variable: "WIDGETBUS_APNS_CA_FILE", defaultValue: "",
        purpose: "PEM certificates to trust for APNs instead of the system's (an outbound TLS proxy); empty: the system's")

    public static let allowPlaintextForTests = EnvironmentSetting(
        variable: "WIDGETBUS_APNS_ALLOW_PLAINTEXT_FOR_TESTS", defaultValue: "0",
        purpose: "1 lets the APNs URLs be http:// (a stand-in APNs in a test): pushes and the provider token then go in clear text; never in a deployment")

    public static let all = [mode, keyFile, keyID, teamID, topic, sandboxURL, productionURL, caFile, allowPlaintextForTests]

    /// The sender the environment asks for, and the services that must run beside push-gateway
    /// for it (the APNs client's, shut down after push-gateway's, which waits for the answers to
    /// its pushes in flight before it stops). An APNs client keeps its provider tokens in
    /// `providerTokens`.
    public static func sender(
        in environment: [String: String], providerTokens: ProviderTokenStore, logger: Logger
    ) throws -> (any PushSender, [any Service]) {
        switch mode.resolve(in: environment) {
        case "dry-run":
            return (DryRunSender(logger: logger), [])
        case "send":
            func required(_ setting: EnvironmentSetting) throws -> String {
                let value = setting.resolve(in: environment)
                guard !value.isEmpty else { throw InvalidSetting("\(setting.variable) is needed when WIDGETBUS_APNS_MODE=send") }
                return value
            }
            let keyPath = try required(keyFile)
            let pem: String
            do {
                pem = try String(contentsOfFile: keyPath, encoding: .utf8)
            } catch {
                throw InvalidSetting("\(keyFile.variable): cannot read \(keyPath): \(error)")
            }
            let credentials: APNsProviderToken.Credentials
            do {
                credentials = try APNsProviderToken.Credentials(p8: pem, keyID: try required(keyID), teamID: try required(teamID))
            } catch let error as InvalidSetting {
                throw error
            } catch {
                throw InvalidSetting("\(keyFile.variable): \(keyPath) is not a P-256 key in PKCS#8 PEM: \(error)")
            }
            let ca = caFile.resolve(in: environment)
            let roots: [NIOSSLCertificate]?
            do {
                roots = ca.isEmpty ? nil : try NIOSSLCertificate.fromPEMFile(ca)
            } catch {
                throw InvalidSetting("\(caFile.variable): cannot read certificates from \(ca): \(error)")
            }
            let client = APNsClient(
                configuration: .init(
                    sandboxURL: try url(sandboxURL, in: environment, logger: logger),
                    productionURL: try url(productionURL, in: environment, logger: logger),
                    topic: try required(topic), credentials: credentials, trustRoots: roots),
                providerTokens: providerTokens, logger: logger)
            return (client, [APNsClientLifetime(client: client)])
        case let other:
            throw InvalidSetting("\(mode.variable) must be dry-run or send, got '\(other)'")
        }
    }
}

extension APNsSettings {
    /// The APNs URL `setting` names: `https` only, since every request carries the provider
    /// token, which lets whoever reads it push to the app's devices for up to an hour; and APNs
    /// itself takes nothing else. `http` only when ``allowPlaintextForTests`` is 1, with a warning
    /// at start.
    static func url(_ setting: EnvironmentSetting, in environment: [String: String], logger: Logger) throws -> String {
        let allow = try allowPlaintextForTests.flag(in: environment)
        let value = setting.resolve(in: environment)
        switch value.split(separator: ":", maxSplits: 1).first?.lowercased() {
        case "https":
            return value
        case "http" where allow:
            logger.warning(
                "\(setting.variable)=\(value): pushes and the provider token go in clear text, as \(allowPlaintextForTests.variable)=1 allows (for tests only)")
            return value
        default:
            throw InvalidSetting(
                "\(setting.variable) must be an https:// URL, got '\(value)': every push carries the provider token, which must not go in clear text")
        }
    }
}

/// Keeps the APNs client until the process shuts down, then closes its connections.
struct APNsClientLifetime: Service {
    let client: APNsClient

    func run() async throws {
        try? await gracefulShutdown()
        try await client.shutdown()
    }
}
