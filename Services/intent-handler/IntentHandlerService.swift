import Foundation
import Logging
import ServiceLifecycle
import ServiceSupport
import WidgetBusProtocol
import ZeroMQ

/// The single writer of widget state. One dedicated thread owns its three sockets: intents
/// (ROUTER), snapshots (ROUTER) and state events (PUB); serving snapshots on the same thread as
/// commits keeps every snapshot consistent with the sequence it reports.
struct IntentHandlerService: Service {
    struct Configuration: Sendable {
        var intentsEndpoint: String
        var stateEventsEndpoint: String
        var snapshotEndpoint: String
        var databasePath: String
        /// How many user states (one user's state of one app) stay decoded in memory.
        var stateCapacity: Int

        init(environment: [String: String]) throws {
            intentsEndpoint = BusEndpoint.intents.resolve(in: environment)
            stateEventsEndpoint = BusEndpoint.stateEvents.resolve(in: environment)
            snapshotEndpoint = BusEndpoint.stateSnapshot.resolve(in: environment)
            let dataDirectory = EnvironmentSetting.dataDirectory.resolve(in: environment)
            databasePath = (dataDirectory as NSString).appendingPathComponent("intent-handler.sqlite")
            stateCapacity = try EnvironmentSetting.stateCapacity.integer(in: environment, range: 1...10_000_000)
        }
    }

    /// Upper bound on how long a stop request waits for the loop to notice it.
    static let pollIntervalMilliseconds = 100
    /// Requests taken from a socket at once and committed together (group commit): large enough
    /// that a burst costs few commits, small enough that the first reply of a burst is not held
    /// back long by the ones after it.
    static let drainBatch = 64

    let configuration: Configuration
    let logger: Logger

    func run() async throws {
        try await DedicatedThread.run(name: "intent-handler") { stop in
            try serve(until: stop)
        }
    }

    private func serve(until stop: StopSignal) throws {
        let codec = WireCodec()
        let store = try WidgetStateStore(path: configuration.databasePath, codec: codec)
        let pruned = try store.pruneHandledRequests(olderThan: Date().addingTimeInterval(-WidgetStateStore.replyRetention))
        var nextPrune = Date().addingTimeInterval(3600)
        let processor = try IntentProcessor(
            store: store, codec: codec, epoch: PublisherEpoch.random(), capacity: configuration.stateCapacity)

        let context = try ZMQContext()
        defer { context.terminate() }
        let intents = try Self.boundRouter(context, configuration.intentsEndpoint)
        defer { intents.close() }
        let snapshots = try Self.boundRouter(context, configuration.snapshotEndpoint)
        defer { snapshots.close() }
        let sequence = processor.lastSequence
        let publisher = try EventPublisher(
            name: "intent-handler", epoch: processor.epoch, context: context, bindTo: configuration.stateEventsEndpoint, lastSequence: sequence, codec: codec)
        defer { publisher.close() }

        logger.info(
            "intent-handler ready",
            metadata: [
                "intents": "\(configuration.intentsEndpoint)", "events": "\(configuration.stateEventsEndpoint)",
                "snapshot": "\(configuration.snapshotEndpoint)", "database": "\(configuration.databasePath)",
                "epoch": "\(processor.epoch)", "sequence": "\(sequence)", "prunedReplies": "\(pruned)", "stateCapacity": "\(configuration.stateCapacity)",
            ])

        while !stop.isRequested {
            let untilHeartbeat = try publisher.heartbeatIfDue()
            let ready = try ZMQPoller.poll(
                [(intents, .readable), (snapshots, .readable)],
                timeoutMilliseconds: min(untilHeartbeat, Self.pollIntervalMilliseconds))
            if ready[0].contains(.readable) {
                try drain(intents, as: .intents, processor: processor, publisher: publisher, stop: stop)
            }
            if ready[1].contains(.readable) {
                try drain(snapshots, as: .snapshot, processor: processor, publisher: publisher, stop: stop)
            }
            if Date() >= nextPrune {
                _ = try store.pruneHandledRequests(olderThan: Date().addingTimeInterval(-WidgetStateStore.replyRetention))
                nextPrune = Date().addingTimeInterval(3600)
            }
        }
        logger.info("intent-handler stopping", metadata: ["sequence": "\(publisher.lastSequence)"])
    }

    /// Handles the queued requests, up to ``drainBatch`` messages: commits them together, then
    /// replies and publishes in order.
    private func drain(
        _ socket: ZMQSocket, as endpoint: IntentProcessor.Endpoint, processor: IntentProcessor,
        publisher: EventPublisher, stop: StopSignal
    ) throws {
        var messages: [RoutedMessage] = []
        for _ in 0..<Self.drainBatch where !stop.isRequested {
            guard let frames = try socket.receiveMessage(dontWait: true) else { break }
            messages.append(RoutedMessage(frames: frames))
        }
        guard !messages.isEmpty else { return }
        for (message, outcome) in zip(messages, processor.process(messages, on: endpoint)) {
            try socket.send(message.reply(outcome.reply), dontWait: true)
            if let event = outcome.event {
                try publisher.publish(topic: event.topic, sequence: event.sequence, payload: event.payload)
            }
        }
    }

    static func boundRouter(_ context: ZMQContext, _ endpoint: String) throws -> ZMQSocket {
        let socket = try ZMQSocket(context: context, type: .router)
        try socket.setLinger(milliseconds: 500)
        try socket.setMaxMessageSize(bytes: ProtocolLimits.maxTransportBytes)
        try socket.bind(BusEndpoint.bindAddress(for: endpoint))
        return socket
    }
}

extension EnvironmentSetting {
    static let stateCapacity = EnvironmentSetting(
        variable: "WIDGETBUS_STATE_CAPACITY", defaultValue: "100000",
        purpose: "user states (one user's state of one app) kept decoded in memory; the least recently used beyond it are read from the store again")
}
