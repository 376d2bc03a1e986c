import Foundation
import Logging
import ServiceLifecycle
import ServiceSupport
import WidgetBusProtocol
import ZeroMQ

/// Where measurements enter the system. One dedicated thread owns every socket: the PULL that
/// wearables and gateways push samples to, the ROUTER for snapshots and status, the PUB for
/// `MetricsChanged`, and a replica of intent-handler's state for the users' time zones.
/// Each pushed message is committed before its events are published; serving snapshots on the
/// same thread keeps every snapshot consistent with the sequence it reports.
struct MetricsIngestService: Service {
    struct Configuration: Sendable {
        var metricsEndpoint: String
        var eventsEndpoint: String
        var snapshotEndpoint: String
        var stateEventsEndpoint: String
        var stateSnapshotEndpoint: String
        var databasePath: String

        init(environment: [String: String]) {
            metricsEndpoint = BusEndpoint.metrics.resolve(in: environment)
            eventsEndpoint = BusEndpoint.metricsEvents.resolve(in: environment)
            snapshotEndpoint = BusEndpoint.metricsSnapshot.resolve(in: environment)
            stateEventsEndpoint = BusEndpoint.stateEvents.resolve(in: environment)
            stateSnapshotEndpoint = BusEndpoint.stateSnapshot.resolve(in: environment)
            let dataDirectory = EnvironmentSetting.dataDirectory.resolve(in: environment)
            databasePath = (dataDirectory as NSString).appendingPathComponent("metrics-ingest.sqlite")
        }
    }

    /// Upper bound on how long a stop request waits for the loop to notice it.
    static let pollIntervalMilliseconds = 100
    /// Messages taken from a socket before the loop looks at the others again; the pushed ones
    /// taken together are committed in one transaction (group commit).
    static let drainBatch = 64
    /// How long pushed samples wait at start for the users' zones (intent-handler's first
    /// snapshot); past this they are taken, and users without a known zone count in UTC.
    static let zoneWait: TimeInterval = 3
    static let pruneInterval: TimeInterval = 3600

    let configuration: Configuration
    let logger: Logger

    func run() async throws {
        try await DedicatedThread.run(name: "metrics-ingest") { stop in
            try serve(until: stop)
        }
    }

    private func serve(until stop: StopSignal) throws {
        let codec = WireCodec()
        let store = try MetricsStore(path: configuration.databasePath, codec: codec)
        let ingestor = try MetricsIngestor(store: store, codec: codec, epoch: PublisherEpoch.random(), logger: logger)
        let pruned = try ingestor.prune()
        var nextPrune = Date().addingTimeInterval(Self.pruneInterval)
        let responder = MetricsQueryResponder(ingestor: ingestor, codec: codec)

        let context = try ZMQContext()
        defer { context.terminate() }
        let samples = try ZMQSocket(context: context, type: .pull)
        defer { samples.close() }
        try samples.setLinger(milliseconds: 0)
        try samples.setMaxMessageSize(bytes: ProtocolLimits.maxTransportBytes)
        try samples.bind(BusEndpoint.bindAddress(for: configuration.metricsEndpoint))
        let requests = try ZMQSocket(context: context, type: .router)
        defer { requests.close() }
        try requests.setLinger(milliseconds: 500)
        try requests.setMaxMessageSize(bytes: ProtocolLimits.maxTransportBytes)
        try requests.bind(BusEndpoint.bindAddress(for: configuration.snapshotEndpoint))
        let publisher = try EventPublisher(
            name: "metrics-ingest", epoch: ingestor.epoch, context: context, bindTo: configuration.eventsEndpoint, lastSequence: ingestor.sequence,
            codec: codec)
        defer { publisher.close() }
        let zones = try StateReplica(
            context: context, eventsEndpoint: configuration.stateEventsEndpoint,
            snapshotEndpoint: configuration.stateSnapshotEndpoint, holdsStates: false, codec: codec, logger: logger)
        defer { zones.close() }
        let zoneDeadline = Date().addingTimeInterval(Self.zoneWait)
        var ingesting = false

        logger.info(
            "metrics-ingest ready",
            metadata: [
                "metrics": "\(configuration.metricsEndpoint)", "events": "\(configuration.eventsEndpoint)",
                "snapshot": "\(configuration.snapshotEndpoint)", "database": "\(configuration.databasePath)",
                "epoch": "\(ingestor.epoch)", "sequence": "\(ingestor.sequence)", "users": "\(ingestor.records.count)", "prunedSampleKeys": "\(pruned)",
            ])

        while !stop.isRequested {
            if !ingesting, zones.snapshotCount > 0 || Date() >= zoneDeadline {
                ingesting = true
                logger.info("taking samples", metadata: ["zonesSynced": "\(zones.snapshotCount > 0)"])
            }
            let untilHeartbeat = try publisher.heartbeatIfDue()
            let ready = try ZMQPoller.poll(
                [(samples, ingesting ? .readable : []), (requests, .readable)] + zones.pollItems,
                timeoutMilliseconds: min(untilHeartbeat, Self.pollIntervalMilliseconds))
            _ = try zones.handle(ready: ready[2...])
            if ready[0].contains(.readable) {
                var pushed: [[Data]] = []
                for _ in 0..<Self.drainBatch where !stop.isRequested {
                    guard let frames = try samples.receiveMessage(dontWait: true) else { break }
                    pushed.append(frames)
                }
                for event in ingestor.ingest(pushed, timeZone: zones.timeZone(user:)) {
                    try publisher.publish(topic: event.topic, sequence: event.sequence, payload: event.payload)
                }
            }
            if ready[1].contains(.readable) {
                for _ in 0..<Self.drainBatch where !stop.isRequested {
                    guard let frames = try requests.receiveMessage(dontWait: true) else { break }
                    let message = RoutedMessage(frames: frames)
                    try requests.send(message.reply(responder.reply(to: message)), dontWait: true)
                }
            }
            if Date() >= nextPrune {
                _ = try ingestor.prune()
                nextPrune = Date().addingTimeInterval(Self.pruneInterval)
            }
        }
        logger.info("metrics-ingest stopping", metadata: ["sequence": "\(ingestor.sequence)"])
    }
}
