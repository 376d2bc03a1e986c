import BusRuntime
import Foundation
import Logging
import ReplicatedWidgets
import ServiceSupport
import WidgetBusProtocol

/// Where measurements enter the system. One dedicated thread owns every socket: the PULL that
/// wearables and gateways push samples to, the ROUTER for snapshots and status, the PUB for
/// `MetricsChanged`, and a replica of intent-handler's state for the users' time zones.
/// Each pushed message is committed before its events are published; serving snapshots on the
/// same thread keeps every snapshot consistent with the sequence it reports.
public struct MetricsIngestService: BusService {
    public struct Configuration: Sendable {
        var metricsEndpoint: String
        var eventsEndpoint: String
        var snapshotEndpoint: String
        var stateEventsEndpoint: String
        var stateSnapshotEndpoint: String
        var databasePath: String
        var binding: BusBinding

        public init(environment: [String: String]) throws {
            metricsEndpoint = BusEndpoint.metrics.resolve(in: environment)
            eventsEndpoint = BusEndpoint.metricsEvents.resolve(in: environment)
            snapshotEndpoint = BusEndpoint.metricsSnapshot.resolve(in: environment)
            stateEventsEndpoint = BusEndpoint.stateEvents.resolve(in: environment)
            stateSnapshotEndpoint = BusEndpoint.stateSnapshot.resolve(in: environment)
            let dataDirectory = EnvironmentSetting.dataDirectory.resolve(in: environment)
            databasePath = (dataDirectory as NSString).appendingPathComponent("metrics-ingest.sqlite")
            binding = try BusBinding(environment: environment)
        }
    }

    /// Pushed messages taken at once and committed in one transaction (group commit).
    static let drainBatch = 64
    /// How long pushed samples wait at start for the users' zones (intent-handler's first
    /// snapshot); past this they are taken, and users without a known zone count in UTC.
    static let zoneWait: TimeInterval = 3
    static let pruneInterval: TimeInterval = 3600
    /// How long the state events it follows for the zones rest after each turn that takes some.
    /// Every state change reaches this service, and all it needs of them is the rare change of a
    /// zone: taking them every 20 ms costs a wake-up per 20 ms instead of one per intent, and a
    /// new zone applies to samples at most 20 ms later than it would otherwise.
    static let zonePacing: TimeInterval = 0.020

    let configuration: Configuration
    let logger: Logger

    public init(configuration: Configuration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    public var name: String { "metrics-ingest" }
    public var binding: BusBinding { configuration.binding }

    public func start(on bus: Bus) throws {
        let store = try MetricsStore(path: configuration.databasePath, codec: bus.codec)
        let ingestor = try MetricsIngestor(
            store: store, codec: bus.codec, epoch: PublisherEpoch.random(), logger: logger, clock: bus.clock)
        let pruned = try ingestor.prune()
        bus.every(Self.pruneInterval) { _ in _ = try ingestor.prune() }
        let responder = MetricsQueryResponder(ingestor: ingestor, codec: bus.codec)
        let publisher = try bus.publisher(
            name: "metrics-ingest", epoch: ingestor.epoch, at: configuration.eventsEndpoint, lastSequence: ingestor.sequence)
        let zones = try StateReplica(
            bus: bus, eventsEndpoint: configuration.stateEventsEndpoint, snapshotEndpoint: configuration.stateSnapshotEndpoint,
            holdsStates: false, pacing: Self.zonePacing, logger: logger)
        try bus.requests(at: configuration.snapshotEndpoint, as: MetricsRequest.self) { request, _ in
            try responder.reply(to: request)
        }
        // Samples wait in the socket until the zones are known, or for at most `zoneWait`.
        let zoneDeadline = bus.clock.now.addingTimeInterval(Self.zoneWait)
        var ingesting = false
        func startIngesting(now: Date) {
            guard !ingesting, zones.snapshotCount > 0 || now >= zoneDeadline else { return }
            ingesting = true
            logger.info("taking samples", metadata: ["widgetbus.zones_synced": "\(zones.snapshotCount > 0)"])
        }
        bus.afterMessages(startIngesting(now:))
        bus.timer(dueAt: { ingesting ? nil : zoneDeadline }, startIngesting(now:))
        try bus.pull(at: configuration.metricsEndpoint, batch: Self.drainBatch, while: { ingesting }) { pushed in
            for event in ingestor.ingest(pushed, timeZone: zones.timeZone(user:)) {
                try publisher.publish(topic: event.topic, sequence: event.sequence, payload: event.payload, trace: event.trace)
            }
        }

        logger.info(
            "metrics-ingest ready",
            metadata: [
                "widgetbus.endpoint.metrics": "\(configuration.metricsEndpoint)", "widgetbus.endpoint.metrics_events": "\(configuration.eventsEndpoint)",
                "widgetbus.endpoint.metrics_snapshot": "\(configuration.snapshotEndpoint)", "widgetbus.database": "\(configuration.databasePath)",
                "widgetbus.epoch": "\(ingestor.epoch)", "widgetbus.sequence": "\(ingestor.sequence)", "widgetbus.users": "\(ingestor.records.count)", "widgetbus.pruned_sample_keys": "\(pruned)",
            ])
        bus.onStop { _ in
            logger.info("metrics-ingest stopping", metadata: ["widgetbus.sequence": "\(ingestor.sequence)"])
        }
    }
}
