import AppGatewayIdentity
import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// An issuer's keys fetched from its JWKS URL (Sign in with Apple's
/// `https://appleid.apple.com/auth/keys`), kept, and fetched again when a token names a `kid`
/// they lack: issuers rotate keys by publishing the new one first. The `kid` is chosen by whoever
/// sends the token, so a refetch for an unknown one happens at most once per
/// ``refetchInterval``; between refetches an unknown `kid` is refused at once. A fetch that fails
/// keeps the keys already held.
actor RemoteSigningKeySource: SigningKeySource {
    /// The shortest time between two fetches caused by unknown `kid`s: a minute.
    static let defaultRefetchInterval: Duration = .seconds(60)
    /// The largest JWKS document read.
    static let maxDocumentBytes = 256 * 1024

    let url: URL
    let refetchInterval: Duration
    private let logger: Logger
    private var keys: [String: VerificationKey] = [:]
    private var lastFetch: ContinuousClock.Instant?
    private var fetching: Task<Void, Never>?

    /// - Throws: ``IdentityConfigurationError`` for a URL that is not `https://` (plain `http://`
    ///   only to a loopback host: an identity provider on the same machine).
    init(url: URL, refetchInterval: Duration = defaultRefetchInterval, logger: Logger) throws(IdentityConfigurationError) {
        let loopback = ["127.0.0.1", "::1", "localhost"].contains(url.host ?? "")
        guard url.scheme == "https" || (url.scheme == "http" && loopback) else {
            throw IdentityConfigurationError("a JWKS URL must be https:// (http:// only on loopback), got \(url.absoluteString)")
        }
        self.url = url
        self.refetchInterval = refetchInterval
        self.logger = logger
    }

    func key(id: String) async -> VerificationKey? {
        if let key = keys[id] { return key }
        if let lastFetch, ContinuousClock.now - lastFetch < refetchInterval { return nil }
        await refresh()
        return keys[id]
    }

    /// Fetches the document once (callers that arrive meanwhile wait for the same fetch).
    func refresh() async {
        if let fetching { return await fetching.value }
        let task = Task { await fetch() }
        fetching = task
        await task.value
        fetching = nil
    }

    private func fetch() async {
        lastFetch = .now
        do {
            var request = HTTPClientRequest(url: url.absoluteString)
            request.headers.add(name: "Accept", value: "application/json")
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
            guard response.status == .ok else { throw IdentityConfigurationError("status \(response.status.code)") }
            let body = try await response.body.collect(upTo: Self.maxDocumentBytes)
            let fetched = try await VerificationKey.keys(fromJWKS: Data(body.readableBytesView))
            keys = Dictionary(fetched.map { ($0.id, $0) }) { first, _ in first }
            logger.info("JWKS fetched", metadata: ["widgetbus.jwks_url": "\(url)", "widgetbus.keys": "\(keys.count)"])
        } catch {
            logger.error("JWKS not fetched; the keys held stay", metadata: ["widgetbus.jwks_url": "\(url)", "widgetbus.error": "\(error)"])
        }
    }
}
