import Foundation
import W3CTraceContext
import WidgetDomain

/// A request as one endpoint reads it: decoded and validated in the order of docs/PROTOCOL.md
/// §8, so every endpoint refuses a malformed request with the same code. What a service needs
/// from any of them to answer it, or to answer it with an error.
public protocol DecodedRequest: Sendable {
    var id: String { get }
    var type: MessageType { get }
    var user: String? { get }
    /// The trace the request belongs to, when it carried a well-formed `traceparent`.
    var trace: TraceContext? { get }
    /// Decodes and validates one payload; the error carries the code the client sees.
    static func decode(_ payload: Data, codec: WireCodec) throws(ProtocolError) -> Self
}

/// Any request of the protocol, its body read by the catalog of every request type: what a client
/// or a test decodes. A service reads the requests of each endpoint with that endpoint's own
/// catalog (``IntentsRequest``, ``TimelinesRequest``, …).
public typealias Request = EndpointRequest<RequestBody>

/// Every request body the protocol defines. Each endpoint's catalog reads a request through this
/// one, so every endpoint checks a body the same way before it says whether it serves the type.
public enum RequestBody: Sendable, Equatable {
    case intent(WidgetIntent)
    case setTimeZone(identifier: String)
    case registerPushToken(PushTokenRegistration)
    /// The token, normalized (``WidgetPushToken/normalized(_:)``).
    case removePushToken(token: String)
    /// A timeline, answered once it reflects every change up to `minimumVersion` when given.
    case timeline(kind: WidgetKind, minimumVersion: UInt64? = nil)
    case snapshot(topicPrefix: String)
    case appForeground
    case pendingRecords
    case pendingUsers
    case acknowledgeRecords([RecordAcknowledgement])
    case sync
    case syncStatus
    case ping
}

// MARK: - Request bodies on the wire

public struct SetTimeZoneBody: Codable, Sendable, Equatable {
    /// An IANA identifier such as `Europe/Paris`.
    public var timeZone: String
    public init(timeZone: String) { self.timeZone = timeZone }
}

/// One confirmed record: `revision` is the one the sync target stored, so a record changed
/// since then stays pending.
public struct RecordAcknowledgement: Codable, Sendable, Equatable, Hashable {
    public var collection: String
    public var id: String
    public var revision: UInt64

    public init(collection: String, id: String, revision: UInt64) {
        self.collection = collection
        self.id = id
        self.revision = revision
    }
}

public struct AcknowledgeRecordsBody: Codable, Sendable, Equatable {
    public var records: [RecordAcknowledgement]
    public init(records: [RecordAcknowledgement]) { self.records = records }
}

public struct TimelineRequestBody: Codable, Sendable, Equatable {
    public var kind: WidgetKind
    /// Read your own writes: the `version` of a `StateReply` or `ProfileReply`. The timeline is
    /// answered only once it reflects every change up to that version (or `unavailable` after a
    /// bounded wait); nil answers at once with what timeline-service has.
    public var minimumVersion: UInt64?

    public init(kind: WidgetKind, minimumVersion: UInt64? = nil) {
        self.kind = kind
        self.minimumVersion = minimumVersion
    }
}

public struct SnapshotRequestBody: Codable, Sendable, Equatable {
    /// A topic prefix such as `state.` (everything), `state.tensionCheck.` or `state.tensionCheck.alice`.
    public var prefix: String
    public init(prefix: String) { self.prefix = prefix }
}

extension MessageType {
    var requiresUser: Bool {
        switch self {
        case .snapshotRequest, .pendingUsersRequest, .syncStatusRequest, .ping, .metricSample, .metricBatch,
            .metricsStatusRequest:
            false
        default: true
        }
    }
}

/// The body decoder of one endpoint: which request types it serves and how it reads their
/// bodies. The envelope around every body is read and checked the same way for all of them
/// (``EndpointRequest``), so each endpoint answers a malformed envelope identically.
public protocol RequestBodyCatalog: Sendable {
    init(type: MessageType, rawType: String, in container: KeyedDecodingContainer<WireRequestKey>) throws
}

/// The fields of a request envelope.
public enum WireRequestKey: String, CodingKey { case version, id, type, user, sentAt, traceparent, tracestate, body }

/// A request as one endpoint reads it: the envelope's fields and the body its catalog decoded,
/// validated in the order of docs/PROTOCOL.md §8.
public struct EndpointRequest<Body: RequestBodyCatalog>: DecodedRequest, Decodable {
    public var id: String
    public var type: MessageType
    public var user: String?
    public var sentAt: Date
    public var trace: TraceContext?
    public var body: Body

    public init(id: String, type: MessageType, user: String?, sentAt: Date, trace: TraceContext? = nil, body: Body) {
        self.id = id
        self.type = type
        self.user = user
        self.sentAt = sentAt
        self.trace = trace
        self.body = body
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: WireRequestKey.self)
        let version = try container.decode(Int.self, forKey: .version)
        guard version == ProtocolLimits.version else {
            throw ProtocolError(.unsupportedVersion, "version \(version) is not supported; this server speaks \(ProtocolLimits.version)")
        }
        let rawType = try container.decode(String.self, forKey: .type)
        guard let type = MessageType(rawValue: rawType) else {
            throw ProtocolError(.unknownType, "unknown message type \(rawType)")
        }
        self.type = type
        id = try container.decode(String.self, forKey: .id)
        user = try container.decodeIfPresent(String.self, forKey: .user)
        sentAt = try container.decode(Date.self, forKey: .sentAt)
        // Never a reason to refuse a request: a trace that does not read is no trace (W3C).
        trace = TraceContext(
            traceparent: try? container.decodeIfPresent(String.self, forKey: .traceparent),
            tracestate: try? container.decodeIfPresent(String.self, forKey: .tracestate))
        body = try Body(type: type, rawType: rawType, in: container)
    }

    /// Decodes and validates one request payload.
    ///
    /// - Throws: ``ProtocolError`` with the code a client should see; no widget rule has run.
    public static func decode(_ payload: Data, codec: WireCodec) throws(ProtocolError) -> EndpointRequest {
        try decode(payload, codec: codec, maxPayloadBytes: ProtocolLimits.maxPayloadBytes)
    }

    /// Decodes and validates one payload of at most `maxPayloadBytes`.
    static func decode(
        _ payload: Data, codec: WireCodec, maxPayloadBytes: Int
    ) throws(ProtocolError) -> EndpointRequest {
        guard payload.count <= maxPayloadBytes else {
            throw ProtocolError(.payloadTooLarge, "payload of \(payload.count) bytes exceeds \(maxPayloadBytes)")
        }
        let request: EndpointRequest
        do {
            request = try codec.decode(EndpointRequest.self, from: payload)
        } catch let error as ProtocolError {
            throw error
        } catch let error as DecodingError {
            throw ProtocolError(decodingError: error)
        } catch {
            throw ProtocolError(.badJSON, "\(error)")
        }
        if let user = request.user {
            try ProtocolLimits.validateUser(user)
        } else if request.type.requiresUser {
            throw ProtocolError(.missingField, "\(request.type.rawValue) needs a user")
        }
        try ProtocolLimits.validateMessageID(request.id)
        return request
    }
}

extension EndpointRequest: Equatable where Body: Equatable {}

extension RequestBody: RequestBodyCatalog {
    public init(type: MessageType, rawType: String, in container: KeyedDecodingContainer<WireRequestKey>) throws {
        if let intent = try WidgetIntent(type: type, body: container.superDecoder(forKey: .body)) {
            self = .intent(intent)
            return
        }
        switch type {
        case .setTimeZone:
            self = .setTimeZone(identifier: try container.decode(SetTimeZoneBody.self, forKey: .body).timeZone)
        case .registerWidgetPushToken:
            self = .registerPushToken(try PushTokenRegistration(container.decode(RegisterWidgetPushTokenBody.self, forKey: .body)))
        case .removeWidgetPushToken:
            self = .removePushToken(token: try WidgetPushToken.normalized(container.decode(RemoveWidgetPushTokenBody.self, forKey: .body).token))
        case .timelineRequest:
            let body = try container.decode(TimelineRequestBody.self, forKey: .body)
            self = .timeline(kind: body.kind, minimumVersion: body.minimumVersion)
        case .snapshotRequest:
            self = .snapshot(topicPrefix: try container.decode(SnapshotRequestBody.self, forKey: .body).prefix)
        case .appForeground:
            self = .appForeground
        case .pendingRecordsRequest:
            self = .pendingRecords
        case .pendingUsersRequest:
            self = .pendingUsers
        case .acknowledgeRecords:
            self = .acknowledgeRecords(try container.decode(AcknowledgeRecordsBody.self, forKey: .body).records)
        case .syncRequest:
            self = .sync
        case .syncStatusRequest:
            self = .syncStatus
        case .ping:
            self = .ping
        case .recordTension, .markInterventionDone, .resetWidget, .quickLogFood, .configureDietWidget, .updateNutrition,
            .updateGoals, .updateRecentFoods, .setTrackingMode, .createGoal, .archiveGoal, .unarchiveGoal,
            .completeOnboarding, .createDayEntry, .toggleFocus, .recordStressMeasurement, .updateWidget, .startDrink,
            .completeDrink, .updateJitterScores:
            preconditionFailure("\(rawType) is a widget message with no decoder in the catalog")
        case .metricSample, .metricBatch, .metricsStatusRequest:
            throw ProtocolError(.unknownType, "\(rawType) is served by metrics-ingest, not on this endpoint")
        case .stateReply, .timelineReply, .snapshotReply, .pendingRecordsReply, .profileReply, .pushTokensReply, .acknowledgeReply,
            .pendingUsersReply, .syncReply, .syncStatusReply, .metricsSnapshotReply, .timelineSnapshotReply, .metricsStatusReply, .pong,
            .error, .stateChanged, .profileChanged, .pushTokensChanged, .appForegrounded, .syncCompleted, .metricsChanged, .timelineChanged, .heartbeat:
            throw ProtocolError(.unknownType, "\(rawType) is not a request")
        }
    }
}

extension ProtocolError {
    /// Maps the decoder's errors onto the protocol's codes, naming the field.
    init(decodingError error: DecodingError) {
        func path(_ context: DecodingError.Context, _ key: (any CodingKey)? = nil) -> String {
            let keys = context.codingPath + (key.map { [$0] } ?? [])
            return keys.map(\.stringValue).joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context):
            self.init(.missingField, "missing field \(path(context, key))")
        case .valueNotFound(_, let context) where context.codingPath.isEmpty:
            self.init(.badJSON, "payload is not a JSON object")
        case .valueNotFound(_, let context):
            self.init(.missingField, "missing value at \(path(context))")
        case .typeMismatch(_, let context) where context.codingPath.isEmpty:
            self.init(.badJSON, "payload is not a JSON object")
        case .typeMismatch(let type, let context):
            self.init(.invalidField, "field \(path(context)) must be \(type)")
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            self.init(.badJSON, "payload is \(context.debugDescription)")
        case .dataCorrupted(let context):
            self.init(.invalidField, "field \(path(context)): \(context.debugDescription)")
        @unknown default:
            self.init(.badJSON, "\(error)")
        }
    }
}
