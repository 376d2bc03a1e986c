import Foundation
import OpenAPIRuntime
import OpenAPIURLSession

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What an app and its widget extension use to talk to app-gateway: intents with safe retries,
/// timelines revalidated by `ETag` and kept for offline use, push-token registration, samples,
/// and the live stream of the user's timeline changes.
///
/// The requests and their types are generated from docs/openapi.yaml (`Client`,
/// `Components.Schemas`); this type adds what every app would otherwise write itself. It holds no
/// state but its cache folder, so an App Intent's `perform()` and a widget's `TimelineProvider`
/// can each make their own, over the same folder.
public struct WidgetBusClient: Sendable {
    /// Why a token is asked for: the one in hand, or a renewed one after the gateway refused the
    /// last (`401`): it had run out or was revoked.
    public enum TokenRequest: Sendable {
        case current
        case renewed
    }

    /// Returns the bearer token (a Sign in with Apple identity token, or the app backend's own)
    /// that proves the user to the gateway.
    public typealias TokenProvider = @Sendable (TokenRequest) async throws -> String

    /// The generated client, for an operation this type does not wrap. It sends the token like
    /// every call here, but without retries, and its errors are the runtime's `ClientError`s, with
    /// a ``WidgetBusClientError`` as their `underlyingError` for a problem.
    public let api: Client
    let cache: ResponseCache?
    let retries: RetryPolicy

    /// - Parameters:
    ///   - serverURL: The gateway, `https://host[:port]`.
    ///   - cacheDirectory: Where timelines and snapshots are kept for revalidation and offline
    ///     use; on iOS a folder of the App Group container the app and its widget extension share.
    ///     One folder per signed-in account: what is kept there is that user's (``clearCache()`` on
    ///     sign-out). Nothing is kept when nil.
    ///   - retries: How transient failures are retried (``RetryPolicy/widget`` in a widget).
    ///   - transport: How requests are sent: ``sessionTransport`` unless the caller gives another.
    ///   - token: The bearer token, asked for before each request and once more after a `401`.
    public init(
        serverURL: URL, cacheDirectory: URL? = nil, retries: RetryPolicy = RetryPolicy(),
        transport: any ClientTransport = WidgetBusClient.sessionTransport, token: @escaping TokenProvider
    ) {
        api = Client(
            serverURL: serverURL, configuration: Configuration(dateTranscoder: MillisecondDates()),
            transport: transport, middlewares: [ProblemMiddleware(), BearerTokenMiddleware(token: token), EntityTagMiddleware()])
        cache = cacheDirectory.map(ResponseCache.init(directory:))
        self.retries = retries
    }

    /// URLSession without a URL cache of its own: the client keeps timelines itself, in the folder
    /// the widget reads, and a URLCache would answer from memory, for `max-age`, what must be
    /// revalidated or read at a version.
    public static let sessionTransport: URLSessionTransport = {
        let configuration = URLSessionConfiguration.default
        configuration.urlCache = nil
        // The longest silence before a request fails (and is retried, or the cache answers):
        // above the event stream's 15 s heartbeat, well below URLSession's 60 s.
        configuration.timeoutIntervalForRequest = 20
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return URLSessionTransport(configuration: .init(session: URLSession(configuration: configuration)))
    }()

    // MARK: - Writes

    public typealias MessageType = Components.Schemas.AppMessageType

    /// Sends an intent or app message for the user and returns intent-handler's reply: the new state
    /// (or profile, push tokens, pending records) and its version.
    ///
    /// One `Idempotency-Key` is made per call and every retry reuses it, so a tap whose answer was
    /// lost is applied once. Pass the reply's version to ``timeline(for:atLeast:)`` to read your write.
    public func perform(_ type: MessageType, body: OpenAPIObjectContainer = OpenAPIObjectContainer()) async throws -> Components.Schemas.IntentReply {
        try await write { key in
            let output = try await api.postIntent(headers: .init(idempotencyKey: key), body: .json(.init(_type: type, body: body)))
            guard case .ok(let ok) = output else { throw WidgetBusClientError.unexpectedResponse(operation: "postIntent", status: nil) }
            return try ok.body.json
        }
    }

    /// ``perform(_:body:)`` with the body as any `Encodable` the app already has.
    public func perform(_ type: MessageType, body: some Encodable) async throws -> Components.Schemas.IntentReply {
        try await perform(type, body: JSONDecoder().decode(OpenAPIObjectContainer.self, from: JSONEncoder.gateway.encode(body)))
    }

    public typealias PushEnvironment = Operations.PutPushToken.Input.Body.JsonPayload.EnvironmentPayload

    /// Registers the device's WidgetKit push token for `kinds` (every kind when nil), removing the
    /// token it replaces in the same change; returns the user's tokens after it.
    public func registerPushToken(
        _ token: Data, environment: PushEnvironment, kinds: [Components.Schemas.WidgetKind]? = nil, replacing previous: Data? = nil
    ) async throws -> Components.Schemas.PushTokensReplyMessage {
        try await write { key in
            let output = try await api.putPushToken(
                path: .init(token: token.hexadecimal), headers: .init(idempotencyKey: key),
                body: .json(.init(environment: environment, kinds: kinds, replaces: previous?.hexadecimal)))
            guard case .ok(let ok) = output else { throw WidgetBusClientError.unexpectedResponse(operation: "putPushToken", status: nil) }
            return try ok.body.json
        }
    }

    /// Stops pushing to `token`; returns the user's tokens after it.
    public func removePushToken(_ token: Data) async throws -> Components.Schemas.PushTokensReplyMessage {
        try await write { key in
            let output = try await api.deletePushToken(path: .init(token: token.hexadecimal), headers: .init(idempotencyKey: key))
            guard case .ok(let ok) = output else { throw WidgetBusClientError.unexpectedResponse(operation: "deletePushToken", status: nil) }
            return try ok.body.json
        }
    }

    /// Hands measurements of the user to metrics-ingest (at most 1,000 a call). The answer says
    /// the batch reached the bus, not that every sample was usable: metrics-ingest judges each.
    public func upload(samples: [Components.Schemas.MetricSample]) async throws -> Operations.PostSamples.Output.Accepted.Body.JsonPayload {
        try await write { key in
            let output = try await api.postSamples(headers: .init(idempotencyKey: key), body: .json(.init(samples: samples)))
            guard case .accepted(let accepted) = output else { throw WidgetBusClientError.unexpectedResponse(operation: "postSamples", status: nil) }
            return try accepted.body.json
        }
    }

    // MARK: - Reads

    /// The user's timeline of `kind`, once it shows state `version` (a reply's version: read your
    /// write) when one is given.
    ///
    /// Revalidated with the cached `ETag` (a `304` returns the cached timeline, marked
    /// `.revalidated`). When the gateway cannot be reached, or is failing, the cached timeline comes
    /// back marked `.cache(age:)` — even if older than `version`: a widget shows what it has.
    public func timeline(
        for kind: Components.Schemas.WidgetKind, atLeast version: Int? = nil
    ) async throws -> Fetched<Components.Schemas.TimelineBody> {
        let name = "\(kind.rawValue).timeline"
        let cached = cache?.read(name, as: Components.Schemas.TimelineBody.self)
        return try await fetched(name, cached: cached, newer: { $0.generatedAt > $1.generatedAt }) {
            let output = try await api.getTimeline(
                path: .init(kind: kind), query: .init(minimumVersion: version), headers: .init(ifNoneMatch: cached?.etag))
            switch output {
            case .ok(let ok): return (ok.headers.eTag, try ok.body.json)
            case .notModified(let notModified) where cached?.etag != nil: return (notModified.headers.eTag, nil)
            default: throw WidgetBusClientError.unexpectedResponse(operation: "getTimeline", status: nil)
            }
        }
    }

    /// What the widget of `kind` shows offline: snapshot-writer's file (docs/SNAPSHOTS.md), or the
    /// cached one, marked `.cache(age:)`, when the gateway cannot be reached.
    public func snapshot(for kind: Components.Schemas.WidgetKind) async throws -> Fetched<OpenAPIObjectContainer> {
        // Snapshots carry no order the client reads: the last answer is kept.
        try await fetched("\(kind.rawValue).snapshot", cached: cache?.read("\(kind.rawValue).snapshot", as: OpenAPIObjectContainer.self), newer: nil) {
            let output = try await api.getSnapshot(path: .init(kind: kind))
            guard case .ok(let ok) = output else { throw WidgetBusClientError.unexpectedResponse(operation: "getSnapshot", status: nil) }
            return (nil, try ok.body.json)
        }
    }

    /// The user's timeline changes as they happen, for the app in the foreground. After a dropped
    /// connection it reconnects and resumes after the last event it returned (`Last-Event-ID`), so
    /// nothing is missed; pass `lastEventID` to resume from an earlier run.
    public func events(after lastEventID: String? = nil) -> TimelineChanges {
        TimelineChanges(client: self, lastEventID: lastEventID)
    }

    /// Forgets every kept timeline and snapshot: on sign-out, so that the next account does not
    /// revalidate, or show offline, what the last one was shown.
    public func clearCache() throws {
        try cache?.clear()
    }

    /// Whether the gateway answers (`/healthz`, no token).
    public func isHealthy() async -> Bool {
        guard case .ok = try? await api.health() else { return false }
        return true
    }

    // MARK: - Plumbing

    /// A write: `request` under the retry policy with one `Idempotency-Key` for all its attempts,
    /// so intent-handler applies it once however often it arrives.
    func write<Value>(_ request: (_ idempotencyKey: String) async throws -> Value) async throws -> Value {
        let key = UUID().uuidString
        return try await call { try await request(key) }
    }

    /// Runs `request` under the retry policy, with the generated client's errors as
    /// ``WidgetBusClientError``.
    func call<Value>(_ request: () async throws -> Value) async throws -> Value {
        try await retries.run {
            do { return try await request() } catch { throw WidgetBusClientError.from(error) }
        }
    }

    /// `request`'s value (nil: the cached one is still current), kept in the cache with its
    /// `ETag`; or the cached value when the gateway could not be reached or kept failing.
    /// `newer(a, b)` says whether `a` is newer than `b`: the app and its widget share the folder,
    /// and one must not put back an older value the other has replaced meanwhile.
    private func fetched<Value: Codable & Sendable>(
        _ name: String, cached: ResponseCache.Entry<Value>?, newer: ((Value, Value) -> Bool)?,
        _ request: () async throws -> (etag: String?, value: Value?)
    ) async throws -> Fetched<Value> {
        do {
            let (etag, sent) = try await call(request)
            guard let value = sent ?? cached?.value else { throw WidgetBusClientError.unexpectedResponse(operation: name, status: 304) }
            // A cache that cannot be written costs the next revalidation, not this answer.
            try? cache?.write(ResponseCache.Entry(etag: etag, confirmedAt: Date(), value: value), as: name) { current in
                newer?(current, value) ?? false
            }
            return Fetched(value: value, source: sent == nil ? .revalidated : .gateway)
        } catch let error as WidgetBusClientError where error.isTransient {
            guard let cached else { throw error }
            return Fetched(value: cached.value, source: .cache(age: .seconds(Date().timeIntervalSince(cached.confirmedAt))))
        }
    }
}

extension Data {
    /// Lowercase hex, as APNs and the gateway spell a device token.
    var hexadecimal: String { map { String(format: "%02x", $0) }.joined() }
}
