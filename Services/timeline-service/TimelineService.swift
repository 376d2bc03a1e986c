import Foundation
import Logging
import ServiceLifecycle
import ServiceSupport
import WidgetBusProtocol
import WidgetDomain
import ZeroMQ

/// Derives timelines from intent-handler's state and metrics-ingest's aggregates: keeps a replica
/// of each (re-synced from snapshots at start and on any gap), answers timeline requests, and
/// publishes a new timeline for every widget whose state or metrics changed — a measurement
/// reaches the Stress Monitor widget at once (the seed's "immediate update after measurement").
struct TimelineService: Service {
    struct Configuration: Sendable {
        var stateEventsEndpoint: String
        var snapshotEndpoint: String
        var metricsEventsEndpoint: String
        var metricsSnapshotEndpoint: String
        var timelinesEndpoint: String
        var timelineEventsEndpoint: String

        init(environment: [String: String]) {
            stateEventsEndpoint = BusEndpoint.stateEvents.resolve(in: environment)
            snapshotEndpoint = BusEndpoint.stateSnapshot.resolve(in: environment)
            metricsEventsEndpoint = BusEndpoint.metricsEvents.resolve(in: environment)
            metricsSnapshotEndpoint = BusEndpoint.metricsSnapshot.resolve(in: environment)
            timelinesEndpoint = BusEndpoint.timelines.resolve(in: environment)
            timelineEventsEndpoint = BusEndpoint.timelineEvents.resolve(in: environment)
        }
    }

    static let pollIntervalMilliseconds = 100
    static let drainBatch = 256

    let configuration: Configuration
    let logger: Logger

    func run() async throws {
        try await DedicatedThread.run(name: "timeline-service") { stop in
            try serve(until: stop)
        }
    }

    private func serve(until stop: StopSignal) throws {
        let codec = WireCodec()
        let context = try ZMQContext()
        defer { context.terminate() }
        let requests = try ZMQSocket(context: context, type: .router)
        defer { requests.close() }
        try requests.setLinger(milliseconds: 500)
        try requests.setMaxMessageSize(bytes: ProtocolLimits.maxTransportBytes)
        try requests.bind(BusEndpoint.bindAddress(for: configuration.timelinesEndpoint))
        let publisher = try EventPublisher(
            name: "timeline-service", epoch: PublisherEpoch.random(), context: context, bindTo: configuration.timelineEventsEndpoint, lastSequence: 0, codec: codec)
        defer { publisher.close() }
        let replicas = try WidgetReplicas(
            context: context, stateEventsEndpoint: configuration.stateEventsEndpoint,
            stateSnapshotEndpoint: configuration.snapshotEndpoint, metricsEventsEndpoint: configuration.metricsEventsEndpoint,
            metricsSnapshotEndpoint: configuration.metricsSnapshotEndpoint, codec: codec, logger: logger)
        defer { replicas.close() }
        let builder = TimelineResponder(replicas: replicas, codec: codec)

        logger.info(
            "timeline-service ready",
            metadata: [
                "epoch": "\(publisher.epoch)", "timelines": "\(configuration.timelinesEndpoint)", "events": "\(configuration.timelineEventsEndpoint)",
                "stateEvents": "\(configuration.stateEventsEndpoint)", "snapshot": "\(configuration.snapshotEndpoint)",
                "metricsEvents": "\(configuration.metricsEventsEndpoint)", "metricsSnapshot": "\(configuration.metricsSnapshotEndpoint)",
            ])

        while !stop.isRequested {
            let untilHeartbeat = try publisher.heartbeatIfDue()
            let ready = try ZMQPoller.poll(
                [(requests, .readable)] + replicas.pollItems,
                timeoutMilliseconds: min(untilHeartbeat, Self.pollIntervalMilliseconds))
            let changed = try replicas.handle(ready: ready[1...])
            for event in try builder.timelineEvents(for: changed, epoch: publisher.epoch, firstSequence: publisher.lastSequence + 1) {
                try publisher.publish(topic: event.topic, sequence: event.sequence, payload: event.payload)
            }
            if ready[0].contains(.readable) {
                for _ in 0..<Self.drainBatch where !stop.isRequested {
                    guard let frames = try requests.receiveMessage(dontWait: true) else { break }
                    let message = RoutedMessage(frames: frames)
                    try requests.send(message.reply(builder.reply(to: message)), dontWait: true)
                }
            }
        }
        logger.info("timeline-service stopping")
    }
}

/// Builds timeline replies and events from the replicas. Separate from the loop so the loop
/// only moves frames.
struct TimelineResponder {
    let replicas: WidgetReplicas
    let codec: WireCodec

    func reply(to message: RoutedMessage) -> Data {
        let request: Request
        switch message.request(codec: codec, Request.decode) {
        case .success(let decoded): request = decoded
        case .failure(let refused): return refused.reply
        }
        do {
            switch request.body {
            case .ping:
                return try codec.reply(to: request.id, user: request.user, type: .pong, body: EmptyBody())
            case .timeline(let kind):
                guard replicas.isReady(kind) else {
                    let owners = kind.showsMetrics ? "intent-handler and metrics-ingest" : "intent-handler"
                    return codec.errorReply(
                        to: request.id, user: request.user, code: .unavailable,
                        message: "timeline-service has not synced with \(owners) yet; retry shortly")
                }
                let user = request.user!
                return try codec.reply(
                    to: request.id, user: user, type: .timelineReply, body: replicas.timeline(kind: kind, user: user))
            case .intent, .setTimeZone, .appForeground, .snapshot, .pendingRecords, .pendingUsers, .acknowledgeRecords,
                .sync, .syncStatus:
                return codec.errorReply(
                    to: request.id, user: request.user, code: .unknownType,
                    message: "\(request.type.rawValue) is not served by timeline-service")
            }
        } catch {
            return codec.errorReply(to: request.id, user: request.user, code: .internalError, message: "\(error)")
        }
    }

    /// One `TimelineChanged` per widget whose state or metrics changed; a burst of changes to the
    /// same widget is coalesced into its latest version, as a widget needs only the newest timeline.
    func timelineEvents(
        for changed: [(widget: WidgetReplicas.Widget, causedBy: String?)], epoch: String, firstSequence: UInt64,
        now: Date = Date()
    ) throws -> [(topic: String, sequence: UInt64, payload: Data)] {
        try changed.enumerated().map { offset, affected in
            let (widget, sequence) = (affected.widget, firstSequence + UInt64(offset))
            let envelope = Envelope(
                type: MessageType.timelineChanged.rawValue, user: widget.user, sentAt: now,
                body: TimelineChangedBody(
                    epoch: epoch, sequence: sequence, causedBy: affected.causedBy,
                    timeline: replicas.timeline(kind: widget.kind, user: widget.user, now: now)))
            return (Topic.timeline(kind: widget.kind, user: widget.user), sequence, try codec.encode(envelope))
        }
    }
}
