import Foundation
import WidgetDomain

// Each request endpoint has its own catalog: the request types it serves, and `notServed` for
// a valid request of any other type, which it answers `unknown_type`. Every catalog reads the
// body through ``RequestBody`` first, so a body is checked the same way on every endpoint and
// the error a client sees does not depend on where it sent the request (docs/PROTOCOL.md §8).

/// What intent-handler answers at `WIDGETBUS_INTENTS`.
public enum IntentsCatalog: RequestBodyCatalog, Equatable {
    case intent(WidgetIntent)
    case setTimeZone(identifier: String)
    case registerPushToken(PushTokenRegistration)
    case removePushToken(token: String)
    case appForeground
    case pendingRecords
    case pendingUsers
    case acknowledgeRecords([RecordAcknowledgement])
    case ping
    case notServed

    public init(type: MessageType, rawType: String, in container: KeyedDecodingContainer<WireRequestKey>) throws {
        switch try RequestBody(type: type, rawType: rawType, in: container) {
        case .intent(let intent): self = .intent(intent)
        case .setTimeZone(let identifier): self = .setTimeZone(identifier: identifier)
        case .registerPushToken(let registration): self = .registerPushToken(registration)
        case .removePushToken(let token): self = .removePushToken(token: token)
        case .appForeground: self = .appForeground
        case .pendingRecords: self = .pendingRecords
        case .pendingUsers: self = .pendingUsers
        case .acknowledgeRecords(let acknowledgements): self = .acknowledgeRecords(acknowledgements)
        case .ping: self = .ping
        case .timeline, .snapshot, .sync, .syncStatus: self = .notServed
        }
    }
}

/// What intent-handler answers at `WIDGETBUS_STATE_SNAPSHOT`: the Clone-pattern snapshots its
/// followers re-sync from.
public enum StateSnapshotCatalog: RequestBodyCatalog, Equatable {
    case snapshot(topicPrefix: String)
    case ping
    case notServed

    public init(type: MessageType, rawType: String, in container: KeyedDecodingContainer<WireRequestKey>) throws {
        switch try RequestBody(type: type, rawType: rawType, in: container) {
        case .snapshot(let prefix): self = .snapshot(topicPrefix: prefix)
        case .ping: self = .ping
        default: self = .notServed
        }
    }
}

/// What timeline-service answers at `WIDGETBUS_TIMELINES`.
public enum TimelinesCatalog: RequestBodyCatalog, Equatable {
    case timeline(kind: WidgetKind, minimumVersion: UInt64?)
    case snapshot(topicPrefix: String)
    case ping
    case notServed

    public init(type: MessageType, rawType: String, in container: KeyedDecodingContainer<WireRequestKey>) throws {
        switch try RequestBody(type: type, rawType: rawType, in: container) {
        case .timeline(let kind, let minimumVersion): self = .timeline(kind: kind, minimumVersion: minimumVersion)
        case .snapshot(let prefix): self = .snapshot(topicPrefix: prefix)
        case .ping: self = .ping
        default: self = .notServed
        }
    }
}

/// What sync-agent answers at `WIDGETBUS_SYNC`.
public enum SyncCatalog: RequestBodyCatalog, Equatable {
    case sync
    case syncStatus
    case ping
    case notServed

    public init(type: MessageType, rawType: String, in container: KeyedDecodingContainer<WireRequestKey>) throws {
        switch try RequestBody(type: type, rawType: rawType, in: container) {
        case .sync: self = .sync
        case .syncStatus: self = .syncStatus
        case .ping: self = .ping
        default: self = .notServed
        }
    }
}

public typealias IntentsRequest = EndpointRequest<IntentsCatalog>
public typealias StateSnapshotRequest = EndpointRequest<StateSnapshotCatalog>
public typealias TimelinesRequest = EndpointRequest<TimelinesCatalog>
public typealias SyncAgentRequest = EndpointRequest<SyncCatalog>
