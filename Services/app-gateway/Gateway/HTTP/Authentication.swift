import AppGatewayIdentity
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import Metrics
import NIOCore
import Observability
import ServiceSupport
import Synchronization

/// What a request carries through the gateway: Hummingbird's core, the peer's address (for the
/// per-address limit) and, once its token is verified, the bus user it proved.
struct GatewayRequestContext: RequestContext, Sendable {
    var coreContext: CoreRequestContextStorage
    let remoteAddress: SocketAddress?
    /// The bus user id the bearer token proved; nil before ``AuthenticationMiddleware``.
    var user: String?
    /// Where a request whose response lasts hands the stream it opened: set by the connection
    /// that writes it (``EventStreamChannelHandler``), nil for every other request.
    var eventStream: EventStreamAdoption?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }

    /// The proven user. Routes behind ``AuthenticationMiddleware`` only.
    var provenUser: String {
        get throws {
            guard let user else { throw Problem.unauthorized("no bearer token", bearerError: nil) }
            return user
        }
    }
}

/// Tokens already verified, so a client that sends the same token with every request pays for
/// one signature check, not one per request (an ES256 verification costs more than the rest of a
/// `304`). A token is kept until it expires (plus the leeway) and is checked for that on every
/// use; the least recently used are forgotten past the capacity. Each is kept by the SHA-256 of
/// its `Authorization` header, 32 bytes instead of the token's several hundred: with a stream
/// open for every user, the cache holds one token per stream.
final class VerifiedTokens: Sendable {
    private let verifier: IdentityVerifier
    private let leeway: TimeInterval
    private let cache: Mutex<LeastRecentlyUsed<SHA256Digest, VerifiedIdentity>>

    init(verifier: IdentityVerifier, leeway: Duration, capacity: Int = 100_000) {
        self.verifier = verifier
        self.leeway = leeway.asSeconds
        cache = Mutex(LeastRecentlyUsed(capacity: capacity))
    }

    func verify(authorizationHeader: String?, now: Date) async throws(IdentityRefusal) -> VerifiedIdentity {
        let key = authorizationHeader.map { SHA256.hash(data: Data($0.utf8)) }
        if let key, let known = cache.withLock({ $0.value(for: key) }) {
            if now <= known.expiresAt.addingTimeInterval(leeway) { return known }
            cache.withLock { $0.removeValue(for: key) }
        }
        let identity = try await verifier.verify(authorizationHeader: authorizationHeader, now: now)
        if let key { cache.withLock { $0.set(identity, for: key) } }
        return identity
    }
}

/// Proves who sends each request under `/v1`: the bearer token is verified, and the bus user it
/// maps to becomes the request's user. Nothing else names a user. A refusal is `401` with
/// `WWW-Authenticate: Bearer`, its `error` as RFC 6750 gives it.
struct AuthenticationMiddleware: RouterMiddleware {
    let tokens: VerifiedTokens

    func handle(
        _ request: Request, context: GatewayRequestContext, next: (Request, GatewayRequestContext) async throws -> Response
    ) async throws -> Response {
        var context = context
        do {
            context.user = try await tokens.verify(authorizationHeader: request.headers[.authorization], now: Date()).userID
        } catch {
            Counter(MetricCatalog.gatewayTokenRefusals, ["reason": error.rawValue]).increment()
            throw Problem.unauthorized(error.description, bearerError: error.bearerError)
        }
        return try await next(request, context)
    }
}

/// Limits each peer address before anything else is done for it, and each proven user's writes:
/// a client that floods is answered `429` with `Retry-After` at the cost of a lookup.
struct AddressLimitMiddleware: RouterMiddleware {
    let limiter: RateLimiter

    func handle(
        _ request: Request, context: GatewayRequestContext, next: (Request, GatewayRequestContext) async throws -> Response
    ) async throws -> Response {
        if let address = Self.client(of: request, peer: context.remoteAddress), let wait = limiter.take(address, at: ContinuousClock.secondsNow) {
            throw Problem.rateLimited(retryAfter: wait, "too many requests from this address")
        }
        return try await next(request, context)
    }

    /// The client's address: the peer's, or — when the peer is on loopback, which is where the
    /// gateway listens in plain HTTP behind a TLS-terminating proxy — the last address the proxy
    /// appended to `X-Forwarded-For`. Otherwise every user behind the proxy would share one
    /// bucket. A client that reaches a loopback gateway directly is on the machine already.
    static func client(of request: Request, peer: SocketAddress?) -> String? {
        guard let peer = peer?.ipAddress else { return nil }
        guard peer == "127.0.0.1" || peer == "::1", let forwarded = request.headers[values: forwardedFor].last else { return peer }
        let last = forwarded.split(separator: ",").last?.trimmingCharacters(in: .whitespaces) ?? ""
        return last.isEmpty ? peer : last
    }

    private static let forwardedFor = HTTPField.Name("X-Forwarded-For")!
}

extension ContinuousClock {
    /// Seconds on the monotonic clock, for ``RateLimiter``.
    static var secondsNow: Double {
        (ContinuousClock.now - ContinuousClock.Instant.zero).asSeconds
    }
}

extension ContinuousClock.Instant {
    fileprivate static let zero = ContinuousClock.now
}
