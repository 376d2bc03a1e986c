import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOSSL
import ServiceSupport
import Synchronization
import WidgetBusProtocol

/// Sends WidgetKit pushes to APNs over HTTP/2 with async-http-client: one client, whose pool
/// keeps one long-lived HTTP/2 connection per APNs host (sandbox, production) and multiplexes
/// every push on it. Each request is `POST /3/device/<token>` with the provider token
/// (``APNsProviderToken``), `apns-push-type: widgets`, the widget topic, priority 5 (delivered
/// when the device's power allows; WidgetKit budgets the reload either way), an expiration at
/// the push's ``OutgoingPush/helpsUntil`` (at most a day away) and `{"aps":{"content-changed":true}}`.
/// Every provider token it signs is kept in push-gateway's store, and the next start reuses it.
public final class APNsClient: PushSender {
    public struct Configuration: Sendable {
        /// `https://host[:port]` of each APNs.
        public var sandboxURL: String
        public var productionURL: String
        /// The `apns-topic` of widget pushes: the app's bundle id followed by `.push-type.widgets`.
        public var topic: String
        public var credentials: APNsProviderToken.Credentials
        /// PEM certificates to trust for APNs instead of the system's (an outbound TLS proxy).
        public var trustRoots: [NIOSSLCertificate]?

        public init(
            sandboxURL: String, productionURL: String, topic: String, credentials: APNsProviderToken.Credentials,
            trustRoots: [NIOSSLCertificate]? = nil
        ) {
            self.sandboxURL = sandboxURL
            self.productionURL = productionURL
            self.topic = topic
            self.credentials = credentials
            self.trustRoots = trustRoots
        }
    }

    /// The longest APNs keeps a push for an offline device: past a day the budget has renewed
    /// and the widget has most likely reloaded.
    static let longestExpiration: TimeInterval = 24 * 60 * 60
    /// How long one request may take, connection included.
    static let requestTimeout = TimeAmount.seconds(15)
    static let payload = #"{"aps":{"content-changed":true}}"#
    /// APNs' reasons that refuse one token for good without calling it gone: the token is valid,
    /// but not for the topic (another app's). Sending it the same push again is refused again.
    /// The other refusals (`BadTopic`, `TopicDisallowed`, `InvalidProviderToken`, `PayloadEmpty`,
    /// …) are about the gateway's request or configuration, alike for every token: marking the
    /// tokens for them would leave every device unpushed after the operator fixes it.
    public static let tokenRefusals: Set<String> = ["DeviceTokenNotForTopic"]

    private let configuration: Configuration
    private let http: HTTPClient
    private let providerToken: Mutex<APNsProviderToken>
    private let providerTokens: ProviderTokenStore
    private let clock: any WallClock
    private let logger: Logger

    /// A client whose first provider token is the one kept in `providerTokens`, if still good.
    public init(configuration: Configuration, providerTokens: ProviderTokenStore, clock: any WallClock = SystemClock(), logger: Logger) {
        self.configuration = configuration
        var tls = TLSConfiguration.makeClientConfiguration()
        if let roots = configuration.trustRoots { tls.trustRoots = .certificates(roots) }
        var client = HTTPClient.Configuration(tlsConfiguration: tls)
        client.httpVersion = .automatic  // HTTP/2, as APNs requires, negotiated by ALPN
        http = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: client)
        let stored: String?
        do {
            stored = try providerTokens.load()
        } catch {
            logger.warning("the provider token kept in the store cannot be read: a new one is signed", metadata: ["widgetbus.error": "\(error)"])
            stored = nil
        }
        providerToken = Mutex(APNsProviderToken(credentials: configuration.credentials, reusing: stored, at: clock.now))
        self.providerTokens = providerTokens
        self.clock = clock
        self.logger = logger
    }

    public var topic: String? { configuration.topic }

    public func send(_ push: OutgoingPush) async -> PushOutcome {
        let now = clock.now
        let base = push.environment == .production ? configuration.productionURL : configuration.sandboxURL
        var request = HTTPClientRequest(url: "\(base)/3/device/\(push.token)")
        request.method = .POST
        do {
            let bearer = try withProviderToken { try $0.token(at: now) }
            request.headers.add(name: "authorization", value: "bearer \(bearer)")
        } catch {
            return .refused(status: 0, reason: "the provider token could not be signed: \(error)")
        }
        let expiration = min(push.helpsUntil ?? .distantFuture, now.addingTimeInterval(Self.longestExpiration))
        request.headers.add(name: "apns-push-type", value: "widgets")
        request.headers.add(name: "apns-topic", value: configuration.topic)
        request.headers.add(name: "apns-priority", value: "5")
        request.headers.add(name: "apns-expiration", value: "\(Int(expiration.timeIntervalSince1970.rounded(.up)))")
        request.headers.add(name: "content-type", value: "application/json")
        request.body = .bytes(ByteBuffer(string: Self.payload))
        do {
            let response = try await http.execute(request, timeout: Self.requestTimeout)
            let body = try await response.body.collect(upTo: 64 * 1024)
            return outcome(status: Int(response.status.code), reason: Self.reason(in: body), headers: response.headers, at: now)
        } catch {
            return .retry(reason: "\(error)", after: nil)
        }
    }

    /// Closes the connections; pushes still in flight fail (and are retried after a restart).
    public func shutdown() async throws {
        try await http.shutdown()
    }

    private func outcome(status: Int, reason: String, headers: HTTPHeaders, at now: Date) -> PushOutcome {
        switch (status, reason) {
        case (200, _):
            return .delivered
        case (400, "BadDeviceToken"), (410, _):
            return .tokenGone(reason: reason)
        case (400, _) where Self.tokenRefusals.contains(reason):
            return .tokenRefused(reason: reason, topic: configuration.topic)
        case (403, "ExpiredProviderToken"):
            let replaced = (try? withProviderToken { try $0.expired(at: now) }) ?? false
            return .retry(reason: replaced ? "provider token expired: replaced" : "provider token called expired though younger than 20 minutes", after: nil)
        case (429, _), (500...599, _):  // 429: TooManyRequests, and TooManyProviderTokenUpdates
            return .retry(reason: "\(status) \(reason)", after: headers.first(name: "retry-after").flatMap(Self.retryAfter))
        default:
            return .refused(status: status, reason: reason)
        }
    }

    /// Runs `use` on the provider token and, when it signed a new one, keeps that in the store. A
    /// token that cannot be kept is still used; the next start signs anew.
    private func withProviderToken<Result>(_ use: (inout APNsProviderToken) throws -> Result) throws -> Result {
        let (result, signed) = try providerToken.withLock { token in
            let before = token.current?.token
            let result = try use(&token)
            return (result, token.current?.token == before ? nil : token.current?.token)
        }
        if let signed {
            do {
                try providerTokens.save(signed)
            } catch {
                logger.warning("the new provider token cannot be kept in the store", metadata: ["widgetbus.error": "\(error)"])
            }
        }
        return result
    }

    /// A `Retry-After` of whole seconds, at most an hour; nil for anything else (an HTTP date).
    static func retryAfter(_ value: String) -> TimeInterval? {
        Int(value.trimmingCharacters(in: .whitespaces)).flatMap { (0...3_600).contains($0) ? TimeInterval($0) : nil }
    }

    /// APNs' `{"reason": …}`, or the body as text when it is not that.
    private static func reason(in body: ByteBuffer) -> String {
        struct Failure: Decodable { var reason: String }
        let data = Data(body.readableBytesView)
        return (try? JSONDecoder().decode(Failure.self, from: data).reason) ?? String(decoding: data, as: UTF8.self)
    }
}
