import Foundation
import WidgetDomain

/// A decoded, validated request. Decoding goes through the catalog in one pass: the envelope's
/// `type` picks the body's shape.
public struct Request: Sendable, Equatable {
    public var id: String
    public var type: MessageType
    public var user: String?
    public var sentAt: Date
    public var body: RequestBody
}

public enum RequestBody: Sendable, Equatable {
    case intent(WidgetIntent)
    case setTimeZone(identifier: String)
    case timeline(kind: WidgetKind)
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
    public init(kind: WidgetKind) { self.kind = kind }
}

public struct SnapshotRequestBody: Codable, Sendable, Equatable {
    /// A topic prefix such as `state.` (everything), `state.tensionCheck.` or `state.tensionCheck.alice`.
    public var prefix: String
    public init(prefix: String) { self.prefix = prefix }
}

extension Request {
    /// Decodes and validates one request payload.
    ///
    /// - Throws: ``ProtocolError`` with the code a client should see; no widget rule has run.
    public static func decode(_ payload: Data, codec: WireCodec) throws(ProtocolError) -> Request {
        guard payload.count <= ProtocolLimits.maxPayloadBytes else {
            throw ProtocolError(
                .payloadTooLarge, "payload of \(payload.count) bytes exceeds \(ProtocolLimits.maxPayloadBytes)")
        }
        let request: Request
        do {
            request = try codec.decode(WireRequest.self, from: payload).request
        } catch let error as ProtocolError {
            throw error
        } catch let error as DecodingError {
            throw ProtocolError(decodingError: error, payload: payload)
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

extension MessageType {
    var requiresUser: Bool {
        switch self {
        case .snapshotRequest, .pendingUsersRequest, .syncStatusRequest, .ping: false
        default: true
        }
    }
}

/// The catalog-driven decoder behind ``Request/decode(_:codec:)``.
private struct WireRequest: Decodable {
    var request: Request

    private enum CodingKeys: String, CodingKey { case version, id, type, user, sentAt, body }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let version = try container.decode(Int.self, forKey: .version)
        guard version == ProtocolLimits.version else {
            throw ProtocolError(.unsupportedVersion, "version \(version) is not supported; this server speaks \(ProtocolLimits.version)")
        }
        let rawType = try container.decode(String.self, forKey: .type)
        guard let type = MessageType(rawValue: rawType) else {
            throw ProtocolError(.unknownType, "unknown message type \(rawType)")
        }
        let id = try container.decode(String.self, forKey: .id)
        let user = try container.decodeIfPresent(String.self, forKey: .user)
        let sentAt = try container.decode(Date.self, forKey: .sentAt)
        let body: RequestBody
        if let intent = try WidgetIntent(type: type, body: container.superDecoder(forKey: .body)) {
            request = Request(id: id, type: type, user: user, sentAt: sentAt, body: .intent(intent))
            return
        }
        switch type {
        case .setTimeZone:
            body = .setTimeZone(identifier: try container.decode(SetTimeZoneBody.self, forKey: .body).timeZone)
        case .timelineRequest:
            body = .timeline(kind: try container.decode(TimelineRequestBody.self, forKey: .body).kind)
        case .snapshotRequest:
            body = .snapshot(topicPrefix: try container.decode(SnapshotRequestBody.self, forKey: .body).prefix)
        case .appForeground:
            body = .appForeground
        case .pendingRecordsRequest:
            body = .pendingRecords
        case .pendingUsersRequest:
            body = .pendingUsers
        case .acknowledgeRecords:
            body = .acknowledgeRecords(try container.decode(AcknowledgeRecordsBody.self, forKey: .body).records)
        case .syncRequest:
            body = .sync
        case .syncStatusRequest:
            body = .syncStatus
        case .ping:
            body = .ping
        case .recordTension, .markInterventionDone, .resetWidget, .quickLogFood, .configureDietWidget, .updateNutrition,
            .updateGoals, .updateRecentFoods, .setTrackingMode, .createGoal, .archiveGoal, .unarchiveGoal,
            .completeOnboarding, .createDayEntry, .toggleFocus, .recordStressMeasurement, .updateWidget, .startDrink,
            .completeDrink, .updateJitterScores:
            preconditionFailure("\(rawType) is a widget message with no decoder in the catalog")
        case .stateReply, .timelineReply, .snapshotReply, .pendingRecordsReply, .profileReply, .acknowledgeReply,
            .pendingUsersReply, .syncReply, .syncStatusReply, .pong, .error,
            .stateChanged, .profileChanged, .appForegrounded, .syncCompleted, .timelineChanged, .heartbeat:
            throw ProtocolError(.unknownType, "\(rawType) is not a request")
        }
        request = Request(id: id, type: type, user: user, sentAt: sentAt, body: body)
    }
}

extension ProtocolError {
    /// Maps Foundation's decoding errors onto the protocol's codes, naming the field.
    ///
    /// Foundation reports a fractional or out-of-range number for an integer field as invalid
    /// JSON without a path, so on that (error-only) path the payload is re-parsed to tell a
    /// malformed payload from a bad value.
    init(decodingError error: DecodingError, payload: Data) {
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
            if (try? JSONSerialization.jsonObject(with: payload)) is [String: Any] {
                self.init(.invalidField, "a number is fractional or out of range where an integer is expected")
            } else {
                self.init(.badJSON, "payload is not a JSON object")
            }
        case .dataCorrupted(let context):
            self.init(.invalidField, "field \(path(context)): \(context.debugDescription)")
        @unknown default:
            self.init(.badJSON, "\(error)")
        }
    }
}
