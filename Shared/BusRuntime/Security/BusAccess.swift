import WidgetBusProtocol

/// The outside clients of the bus, by what they do. Each role's public keys are the `*.key`
/// files of its folder in the keys directory (``BusSecurity``).
public enum ClientRole: String, CaseIterable, Sendable {
    /// Apps, and widgetctl sending intents: send intents, read timelines.
    case publishers
    /// Wearable gateways: push measurements.
    case gateways
    /// Whoever operates the deployment: may connect to every endpoint (widgetctl watch, sync,
    /// metrics-status, snapshots; the load generator, which follows the timeline events).
    case operators
}

/// Who may connect to one endpoint when the bus runs with CURVE: least privilege, so a key that
/// may send intents cannot follow another user's events, and a service's key reaches only what
/// that service follows or calls.
public struct EndpointAccess: Sendable, Equatable {
    public let roles: Set<ClientRole>
    /// The services, by executable name, whose own keys are let in.
    public let services: Set<String>
}

extension BusEndpoint {
    /// The service that binds this endpoint, by executable name: its public key is the one
    /// clients of the endpoint expect (`services/<owner>.key`).
    public var owner: String {
        switch self {
        case .intents, .stateEvents, .stateSnapshot: "intent-handler"
        case .timelines, .timelineEvents: "timeline-service"
        case .sync, .syncEvents: "sync-agent"
        case .metrics, .metricsEvents, .metricsSnapshot: "metrics-ingest"
        default: preconditionFailure("\(variable) has no owner")
        }
    }

    /// Who may connect to this endpoint. Operators may connect to every one.
    public var access: EndpointAccess {
        switch self {
        case .intents: EndpointAccess(roles: [.publishers, .operators], services: ["sync-agent", "push-gateway", "app-gateway"])
        case .stateEvents:
            EndpointAccess(roles: [.operators], services: ["timeline-service", "metrics-ingest", "sync-agent", "push-gateway"])
        case .stateSnapshot: EndpointAccess(roles: [.operators], services: ["timeline-service", "metrics-ingest", "push-gateway"])
        case .timelines: EndpointAccess(roles: [.publishers, .operators], services: ["snapshot-writer", "push-gateway", "app-gateway"])
        case .timelineEvents:
            EndpointAccess(roles: [.operators], services: ["snapshot-writer", "push-gateway", "app-gateway", "intent-handler"])
        case .metrics: EndpointAccess(roles: [.gateways, .operators], services: ["app-gateway"])
        case .metricsEvents, .metricsSnapshot: EndpointAccess(roles: [.operators], services: ["timeline-service"])
        case .sync, .syncEvents: EndpointAccess(roles: [.operators], services: [])
        default: preconditionFailure("\(variable) has no access policy")
        }
    }
}
