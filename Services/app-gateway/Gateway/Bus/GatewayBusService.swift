import BusRuntime
import Foundation
import Logging
import ServiceSupport
import WidgetBusProtocol

/// app-gateway's side of the bus, on a thread of its own: it carries the HTTP requests' messages
/// (``BusConversations``) and follows timeline-service's published timelines into
/// ``PublishedTimelines`` and the users' event streams (``LiveStreams``). It binds nothing: a bus
/// client like widgetctl, with its own CURVE key when the bus has them.
struct GatewayBusService: BusService {
    struct Endpoints: Sendable {
        var intents: String
        var timelines: String
        var timelineEvents: String
        var metrics: String

        init(environment: [String: String]) {
            intents = BusEndpoint.intents.resolve(in: environment)
            timelines = BusEndpoint.timelines.resolve(in: environment)
            timelineEvents = BusEndpoint.timelineEvents.resolve(in: environment)
            metrics = BusEndpoint.metrics.resolve(in: environment)
        }

        static let settings = [BusEndpoint.intents, .timelines, .timelineEvents, .metrics].map(\.setting)
    }

    let endpoints: Endpoints
    let binding: BusBinding
    let conversations: BusConversations
    let published: PublishedTimelines
    let streams: LiveStreams
    let logger: Logger

    var name: String { "app-gateway-bus" }

    func start(on bus: Bus) throws {
        _ = try BusConversationEndpoints(
            bus: bus, intents: endpoints.intents, timelines: endpoints.timelines, metrics: endpoints.metrics,
            conversations: conversations)
        _ = try SequencedReplica(
            PublishedTimelineFollower(published: published), bus: bus, eventsEndpoint: endpoints.timelineEvents,
            snapshotEndpoint: endpoints.timelines, logger: logger
        ) { [streams] in streams.deliver($0) }
    }
}
