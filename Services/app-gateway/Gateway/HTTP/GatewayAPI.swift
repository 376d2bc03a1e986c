import BusRuntime
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOFileSystem
import ServiceLifecycle
import W3CTraceContext
import WidgetBusProtocol
import WidgetDomain

/// The HTTP API (docs/API.md, docs/openapi.yaml): each route proves its caller
/// (``AuthenticationMiddleware``), turns the request into one bus message for that user, and the
/// outcome into HTTP. It holds no widget rule: intent-handler, timeline-service and metrics-ingest
/// judge what they receive exactly as they judge widgetctl's messages.
struct GatewayAPI: Sendable {
    struct Limits: Sendable {
        /// The largest request body: the bus's payload limit, less room for the envelope.
        var bodyBytes = 60 * 1024
        /// The largest body of `POST /v1/samples`: metrics-ingest's own, larger limit, less room
        /// for the envelope and the user named in every sample.
        var samplesBodyBytes = 768 * 1024
        /// The longest a request waits for the bus before it is answered `503`.
        var busPatience: Duration = .seconds(3)
        /// How often an idle event stream gets a comment line, so proxies and clients see it live
        /// (``LiveStreamHeartbeat``).
        var heartbeat: Duration = .seconds(15)
        /// Event streams one user may hold open at once.
        var streamsPerUser = 8
    }

    let conversations: BusConversations
    let published: PublishedTimelines
    let streams: LiveStreams
    let writes: RateLimiter
    let limits: Limits
    let snapshotRoot: String
    /// A codec of the calling task's own (a codec belongs to one thread at a time).
    private var codec: WireCodec { WireCodec() }

    static let idempotencyKey = HTTPField.Name("Idempotency-Key")!
    static let lastEventID = HTTPField.Name("Last-Event-ID")!
    static let traceparent = HTTPField.Name("traceparent")!
    static let tracestate = HTTPField.Name("tracestate")!

    /// The prefix of every operation's path.
    static let pathPrefix = "v1"

    /// One operation of the API: its method and path under ``pathPrefix`` (`:name` a path
    /// parameter), as docs/openapi.yaml lists it, whether its response lasts (written for as long
    /// as the client listens, by ``EventStreamChannelHandler``), and what answers it.
    struct Route: Sendable {
        var method: HTTPRequest.Method
        var path: String
        var lasts = false
        var answer: @Sendable (GatewayAPI, Request, GatewayRequestContext) async throws -> Response
    }

    /// Every operation under `/v1`: the router's routes and what the contract test compares
    /// with the OpenAPI document.
    static let routes: [Route] = [
        Route(method: .post, path: "intents") { try await $0.postIntent($1, $2) },
        Route(method: .get, path: "widgets/:kind/timeline") { try await $0.getTimeline($1, $2) },
        Route(method: .get, path: "widgets/:kind/snapshot") { try await $0.getSnapshot($1, $2) },
        Route(method: .put, path: "push-tokens/:token") { try await $0.putPushToken($1, $2) },
        Route(method: .delete, path: "push-tokens/:token") { try await $0.deletePushToken($1, $2) },
        Route(method: .post, path: "samples") { try await $0.postSamples($1, $2) },
        Route(method: .get, path: "events", lasts: true) { try await $0.events($1, $2) },
    ]

    /// Adds ``routes`` to `api`, the ``pathPrefix`` group the router has put behind authentication.
    func addRoutes(to api: RouterGroup<GatewayRequestContext>) {
        for route in Self.routes {
            api.on(RouterPath(route.path), method: route.method) { request, context -> Response in try await route.answer(self, request, context) }
        }
    }

    // MARK: - Intents and app messages

    /// `POST /v1/intents`: `{"type", "body"}` becomes an envelope for the proven user, its id the
    /// `Idempotency-Key` (so a retry is applied once) or a new one.
    func postIntent(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        let user = try context.provenUser
        try takeWrite(of: user)
        let message = try await jsonObject(of: request, context)
        let unknown = message.encodedFields(excluding: ["type", "body"]).map { String(decoding: $0.key, as: UTF8.self) }
        guard unknown.isEmpty else {
            throw Problem.invalidField(
                "unknown member \(unknown[0]): a request carries only type and body (the user is the token's, the id the Idempotency-Key)")
        }
        guard let type = message.string("type") else {
            throw Problem(.badRequest, ErrorCode.missingField.rawValue, "type is missing or not a string")
        }
        guard let messageType = MessageType(rawValue: type), MessageType.sentByApps.contains(messageType) else {
            throw Problem(.badRequest, ErrorCode.unknownType.rawValue, "\(type) is not an intent or app message")
        }
        let body = message.encoded("body") ?? EncodedJSON(bytes: Array("{}".utf8))
        return try await ask(.intents, user: user, type: messageType, body: body, request: request) { reply in
            try Self.json(Self.typedBody(reply))
        }
    }

    // MARK: - Timelines and snapshots

    /// `GET /v1/widgets/{kind}/timeline[?minimumVersion=N]`: the timeline, answered `304` without
    /// a round trip when `If-None-Match` names a timeline that shows what the latest published
    /// edition shows (``EntityTag``) and no version is awaited.
    func getTimeline(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        let user = try context.provenUser
        let kind = try widgetKind(context)
        var minimumVersion: UInt64?
        if let text = request.uri.queryParameters.get("minimumVersion") {
            guard text.allSatisfy({ $0 >= "0" && $0 <= "9" }), let version = UInt64(text) else {
                throw Problem.invalidField("minimumVersion must be a whole number from 0 to 2^64 − 1")
            }
            minimumVersion = version
        }
        let now = Date()
        let ifNoneMatch = request.headers[.ifNoneMatch]
        // The edition timeline-service published last, while it has not run out, and whether the
        // client's copy shows what it shows.
        let edition = published.edition(user: user, kind: kind).flatMap { $0.version.validUntil.map { $0 > now } ?? true ? $0 : nil }
        let current = edition.flatMap { edition in Self.tags(ifNoneMatch).first { $0.shows(edition.version, of: user, since: edition.contentSince) } }
        if minimumVersion == nil, let current, let edition {
            return Self.notModified(tag: current, edition.version, now: now)
        }
        let body = TimelineRequestBody(kind: kind, minimumVersion: minimumVersion)
        return try await ask(.timelines, user: user, type: .timelineRequest, body: body, request: request) { reply in
            guard let timeline = reply.object("body"), let version = TimelineVersion(timeline) else {
                throw Problem(.internalServerError, ErrorCode.internalError.rawValue, "timeline-service answered without a timeline")
            }
            if let current, let edition, edition.version.hasSameVersions(as: version) {
                return Self.notModified(tag: current, version, now: now)
            }
            var response = Self.json(Data(timeline.encoded))
            response.headers[.eTag] = version.entityTag(for: user)
            response.headers[.cacheControl] = Self.cacheControl(version, now: now)
            return response
        }
    }

    /// `GET /v1/widgets/{kind}/snapshot`: snapshot-writer's file for the widget, as the widget
    /// extension reads it offline.
    func getSnapshot(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        let path = try SnapshotPath(root: snapshotRoot, user: context.provenUser, kind: widgetKind(context))
        let contents: ByteBuffer
        do {
            contents = try await FileSystem.shared.withFileHandle(forReadingAt: FilePath(path.file)) { file in
                try await file.readToEnd(maximumSizeAllowed: .mebibytes(4))
            }
        } catch let error as FileSystemError where error.code == .notFound {
            throw Problem(.notFound, "no_snapshot", "no snapshot of \(path.kind.rawValue) yet: the widget has no state")
        }
        return Response(
            status: .ok, headers: [.contentType: "application/json", .cacheControl: "private, no-cache"], body: .init(byteBuffer: contents))
    }

    // MARK: - Push tokens

    /// `PUT /v1/push-tokens/{token}` with `{"environment", "kinds"?, "replaces"?}`: registers the
    /// device's WidgetKit push token (`RegisterWidgetPushToken`).
    func putPushToken(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        let user = try context.provenUser
        try takeWrite(of: user)
        let token = try context.parameters.require("token")
        let registration = try await decodeBody(PushTokenRegistration.self, of: request, context)
        let body = RegisterWidgetPushTokenBody(
            token: token, environment: registration.environment, kinds: registration.kinds ?? WidgetKind.allCases.map(\.rawValue),
            replaces: registration.replaces)
        return try await ask(.intents, user: user, type: .registerWidgetPushToken, body: body, request: request) { reply in
            try Self.json(Self.typedBody(reply))
        }
    }

    /// `DELETE /v1/push-tokens/{token}`: stops pushing to it (`RemoveWidgetPushToken`).
    func deletePushToken(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        let user = try context.provenUser
        try takeWrite(of: user)
        let body = RemoveWidgetPushTokenBody(token: try context.parameters.require("token"))
        return try await ask(.intents, user: user, type: .removeWidgetPushToken, body: body, request: request) { reply in
            try Self.json(Self.typedBody(reply))
        }
    }

    private struct PushTokenRegistration: Decodable {
        var environment: String
        var kinds: [String]?
        var replaces: String?
    }

    // MARK: - Samples

    /// `POST /v1/samples` with `{"samples": [MetricSample without user]}`: a `MetricBatch` pushed
    /// to metrics-ingest with the proven user in every sample; `202`, as metrics-ingest judges
    /// each sample on its own and answers nothing.
    func postSamples(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        let user = try context.provenUser
        try takeWrite(of: user)
        let batch = try await jsonObject(of: request, context, limit: limits.samplesBodyBytes)
        guard batch.encodedFields(excluding: ["samples"]).isEmpty else { throw Problem.invalidField("a batch has only samples") }
        guard let samples = batch.objects(inArray: "samples") else {
            throw Problem.invalidField("samples must be an array of sample objects")
        }
        guard (1...ProtocolLimits.maxBatchSamples).contains(samples.count) else {
            throw Problem.invalidField("a batch holds 1 to \(ProtocolLimits.maxBatchSamples) samples")
        }
        let userMember = Array(#""user":"#.utf8) + Array(try codec.encode(user))
        var bytes = Array(#"{"samples":["#.utf8)
        for (index, sample) in samples.enumerated() {
            let fields = sample.encodedFields(excluding: [])
            guard !fields.contains(where: { Self.unescapedKey($0.key) == "user" }) else {
                throw Problem.invalidField("samples[\(index)] names a user: every sample is the token's user's")
            }
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            // `{"user":…` and then the sample's own members, after its opening brace.
            bytes += [UInt8(ascii: "{")] + userMember
            if !fields.isEmpty { bytes.append(UInt8(ascii: ",")) }
            bytes += sample.encoded.drop { $0 != UInt8(ascii: "{") }.dropFirst()
        }
        bytes += Array("]}".utf8)
        let (id, payload) = try envelope(user: user, type: .metricBatch, body: EncodedJSON(bytes: bytes), request: request)
        switch await conversations.send(payload, id: id, user: user, to: .metrics, patience: limits.busPatience) {
        case .pushed:
            var response = Self.json(try codec.encode(SamplesAccepted(id: id, samples: samples.count)))
            response.status = .accepted
            return response
        case .reply, .noAnswer:
            throw Problem.busUnavailable("metrics-ingest")
        }
    }

    private struct SamplesAccepted: Encodable {
        var id: String
        var samples: Int
    }

    // MARK: - Event stream

    /// `GET /v1/events`: Server-Sent Events of the caller's own timeline changes, a comment line
    /// when idle, and after `Last-Event-ID` the latest timeline of every widget that changed since.
    /// The route opens the stream and answers its head; the connection writes it
    /// (``EventStreamChannelHandler``) until the client leaves, a newer stream of the user's takes
    /// its place or the gateway stops.
    func events(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        let user = try context.provenUser
        guard let adoption = context.eventStream else {
            throw Problem(.internalServerError, ErrorCode.internalError.rawValue, "an event stream reached the router past its connection's handler")
        }
        // A user past the limit loses their oldest stream, not the new one: a client that
        // reconnects before the gateway noticed it left is not refused.
        guard let stream = streams.open(user: user, atMost: limits.streamsPerUser) else {
            throw Problem(.serviceUnavailable, ErrorCode.unavailable.rawValue, "app-gateway is stopping; reconnect shortly", headers: [.retryAfter: "1"])
        }
        // Opened before the catch-up is read: a change published meanwhile reaches the stream
        // too, and the stream drops whichever of the two is older.
        if let resumeFrom = request.headers[Self.lastEventID] {
            for (kind, position) in published.changed(user: user, since: EventStreamPosition(text: resumeFrom))
            where !(await offerCurrent(kind, of: user, at: position, to: stream, request: request)) {
                // timeline-service did not answer: end the stream rather than skip the change;
                // the client reconnects with the same Last-Event-ID and asks again.
                stream.close()
                break
            }
        }
        adoption.stream = stream
        return Response(
            status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-store", HTTPField.Name("X-Accel-Buffering")!: "no"])
    }

    /// Offers `stream` the current timeline of `user`'s `kind`, which changed at `position` (a catch-up);
    /// false when timeline-service did not answer in time.
    private func offerCurrent(_ kind: WidgetKind, of user: String, at position: SequencePosition, to stream: LiveStream, request: Request) async -> Bool {
        guard let (id, payload) = try? envelope(user: user, type: .timelineRequest, body: TimelineRequestBody(kind: kind), request: request) else { return true }
        guard case .reply(let reply) = await conversations.send(payload, id: id, user: user, to: .timelines, patience: limits.busPatience) else { return false }
        // A refusal (no timeline of that kind) has nothing to offer.
        guard let timeline = JSONFieldScanner(reply).object("body"), let version = TimelineVersion(timeline) else { return true }
        stream.offer(LiveTimeline(user: user, kind: kind, version: version, timeline: timeline.encoded, changedAt: position))
        return true
    }

    // MARK: - Plumbing

    /// Sends `type` with `body` for `user` to `destination` and answers with `success` of the
    /// reply, or the problem its error (or its absence) is.
    private func ask(
        _ destination: BusDestination, user: String, type: MessageType, body: some Encodable & Sendable, request: Request,
        success: (JSONFieldScanner) throws -> Response
    ) async throws -> Response {
        let (id, payload) = try envelope(user: user, type: type, body: body, request: request)
        guard destination == .metrics || payload.count <= ProtocolLimits.maxPayloadBytes else {
            throw Problem(.contentTooLarge, ErrorCode.payloadTooLarge.rawValue, "the message is over the bus's \(ProtocolLimits.maxPayloadBytes) bytes")
        }
        switch await conversations.send(payload, id: id, user: user, to: destination, patience: limits.busPatience) {
        case .reply(let data):
            let reply = JSONFieldScanner(data)
            if reply.string("type") == MessageType.error.rawValue {
                guard case .failure(let error) = try ReplyDecoding.decode(data, as: JSONValue.self, codec: codec) else {
                    throw Problem(.internalServerError, ErrorCode.internalError.rawValue, "an error reply without its code")
                }
                throw Problem(error)
            }
            return try success(reply)
        case .pushed, .noAnswer:
            throw Problem.busUnavailable(destination == .intents ? "intent-handler" : "timeline-service")
        }
    }

    /// The envelope of one message for `user`: its id from `Idempotency-Key` (a UUID) or new, and
    /// the trace of the request's `traceparent`, or a new one.
    private func envelope(user: String, type: MessageType, body: some Encodable & Sendable, request: Request) throws -> (id: String, payload: Data) {
        var id = MessageID.random()
        if let key = request.headers[Self.idempotencyKey] {
            guard let uuid = UUID(uuidString: key) else { throw Problem.invalidField("Idempotency-Key must be a UUID") }
            id = uuid.uuidString.lowercased()
        }
        var envelope = Envelope(id: id, type: type.rawValue, user: user, body: body)
        envelope.trace =
            request.headers[Self.traceparent].flatMap { TraceContext(traceparent: $0, tracestate: request.headers[Self.tracestate]) }
            ?? .start()
        return (id, try codec.encode(envelope))
    }

    private func takeWrite(of user: String) throws {
        if let wait = writes.take(user, at: ContinuousClock.secondsNow) {
            throw Problem.rateLimited(retryAfter: wait, "too many writes for this user; at most \(writes.limit.burst) at once, \(writes.limit.rate) a second")
        }
    }

    /// The request's body, read up to the limit and checked as I-JSON, scanned as an object.
    private func jsonObject(of request: Request, _ context: GatewayRequestContext, limit: Int? = nil) async throws -> JSONFieldScanner {
        let data = try await strictBody(of: request, limit: limit ?? limits.bodyBytes)
        guard data.first(where: { !Self.isWhitespace($0) }) == UInt8(ascii: "{") else { throw Problem.badJSON("the body must be a JSON object") }
        return JSONFieldScanner(data)
    }

    private func decodeBody<Body: Decodable>(_ type: Body.Type, of request: Request, _ context: GatewayRequestContext) async throws -> Body {
        let data = try await strictBody(of: request, limit: limits.bodyBytes)
        do {
            return try codec.decode(Body.self, from: data)
        } catch {
            throw Problem.invalidField("the body does not match the schema: \(Self.decodingDetail(error))")
        }
    }

    private func strictBody(of request: Request, limit: Int) async throws -> Data {
        if let type = request.headers[.contentType], !type.lowercased().hasPrefix("application/json") {
            throw Problem(.unsupportedMediaType, "unsupported_media_type", "send the body as application/json")
        }
        let buffer = try await request.body.collect(upTo: limit)
        let data = Data(buffer.readableBytesView)
        do {
            try InternetJSON.check(data)
        } catch {
            throw Problem.badJSON(error.description)
        }
        return data
    }

    private func widgetKind(_ context: GatewayRequestContext) throws -> WidgetKind {
        guard let kind = context.parameters.get("kind").flatMap(WidgetKind.init(rawValue:)) else {
            throw Problem(.notFound, "not_found", "no such widget kind; kinds are " + WidgetKind.allCases.map(\.rawValue).joined(separator: ", "))
        }
        return kind
    }

    /// A key as its bytes between the quotes read: escapes (`\u0075ser`) resolved.
    private static func unescapedKey(_ key: ArraySlice<UInt8>) -> String {
        guard key.contains(UInt8(ascii: "\\")) else { return String(decoding: key, as: UTF8.self) }
        return (try? WireCodec().decode(String.self, from: Data([UInt8(ascii: "\"")] + key + [UInt8(ascii: "\"")]))) ?? ""
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private static func decodingDetail(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): "\(key.stringValue) is missing"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context), DecodingError.dataCorrupted(let context):
            context.codingPath.isEmpty ? "it is not an object" : "\(context.codingPath.map(\.stringValue).joined(separator: ".")) has the wrong type"
        default: "\(error)"
        }
    }

    /// `{"type": <reply type>, "body": <its body>}` of a reply, its bytes passed on as they came.
    private static func typedBody(_ reply: JSONFieldScanner) throws -> Data {
        guard let type = reply.string("type"), let body = reply.encoded("body") else {
            throw Problem(.internalServerError, ErrorCode.internalError.rawValue, "a reply without type or body")
        }
        var bytes = Array(#"{"body":"#.utf8) + body.bytes
        bytes += Array(#","type":"#.utf8) + Array(("\"" + type + "\"").utf8) + [UInt8(ascii: "}")]
        return Data(bytes)
    }

    private static func json(_ data: Data) -> Response {
        Response(status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    private static func notModified(tag: EntityTag, _ version: TimelineVersion, now: Date) -> Response {
        Response(status: .notModified, headers: [.eTag: tag.text, .cacheControl: cacheControl(version, now: now)])
    }

    /// Cached privately until the timeline runs out; one that never runs out is revalidated each
    /// time (its `ETag` makes that a `304`).
    static func cacheControl(_ version: TimelineVersion, now: Date) -> String {
        guard let until = version.validUntil else { return "private, no-cache" }
        return "private, max-age=\(max(0, Int(until.timeIntervalSince(now).rounded(.down))))"
    }

    /// The tags an `If-None-Match` value lists (weak comparison, RFC 9110 §13.1.2); what is not
    /// a tag of this API is skipped. `*` matches no stored timeline here: a client holds one.
    static func tags(_ ifNoneMatch: String?) -> [EntityTag] {
        (ifNoneMatch ?? "").split(separator: ",").compactMap { listed in
            var tag = listed
            while tag.first == " " || tag.first == "\t" { tag.removeFirst() }
            while tag.last == " " || tag.last == "\t" { tag.removeLast() }
            return EntityTag(tag)
        }
    }
}
