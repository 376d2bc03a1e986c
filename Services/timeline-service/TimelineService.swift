import Foundation
import Logging
import ServiceLifecycle
import ServiceSupport
import WidgetBusProtocol
import WidgetDomain
import ZeroMQ

/// Derives timelines from intent-handler's state and metrics-ingest's aggregates — the only
/// service that does: keeps a replica of each (re-synced from snapshots at start and on any gap),
/// answers timeline requests, and publishes a new timeline for every widget whose state or
/// metrics changed (a measurement reaches the Stress Monitor widget at once) and for every
/// published timeline that runs out, at its `validUntil`. Followers such as snapshot-writer take
/// those bytes as they are and re-sync from its timeline snapshot.
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
    /// The soonest a timeline is published again for time alone: one that runs out the moment it
    /// is built would otherwise be published on every turn.
    static let minimumRefresh: TimeInterval = 1

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
        let builder = TimelineResponder(replicas: replicas, codec: codec, epoch: publisher.epoch)
        var refreshes = RefreshSchedule<WidgetReplicas.Widget>()

        logger.info(
            "timeline-service ready",
            metadata: [
                "epoch": "\(publisher.epoch)", "timelines": "\(configuration.timelinesEndpoint)", "events": "\(configuration.timelineEventsEndpoint)",
                "stateEvents": "\(configuration.stateEventsEndpoint)", "snapshot": "\(configuration.snapshotEndpoint)",
                "metricsEvents": "\(configuration.metricsEventsEndpoint)", "metricsSnapshot": "\(configuration.metricsSnapshotEndpoint)",
            ])

        while !stop.isRequested {
            let untilHeartbeat = try publisher.heartbeatIfDue()
            let untilRefresh = refreshes.timeUntilNextDue(now: Date()).map { Int($0.millisecondsRoundedUp) } ?? .max
            let ready = try ZMQPoller.poll(
                [(requests, .readable)] + replicas.pollItems,
                timeoutMilliseconds: min(untilHeartbeat, Self.pollIntervalMilliseconds, untilRefresh))
            let now = Date()
            let changed = try replicas.handle(ready: ready[1...], now: now)
            let alreadyChanged = Set(changed.map(\.widget))
            let ranOut = refreshes.takeDue(now: now).filter {
                !alreadyChanged.contains($0) && replicas.hasContent(user: $0.user, kind: $0.kind)
            }
            for event in try builder.timelineEvents(
                for: changed + ranOut.map { ($0, nil) }, firstSequence: publisher.lastSequence + 1, now: now)
            {
                try publisher.publish(topic: event.topic, sequence: event.sequence, payload: event.payload)
                if let validUntil = event.validUntil {
                    refreshes.schedule(event.widget, at: max(validUntil, now.addingTimeInterval(Self.minimumRefresh)))
                }
            }
            if ready[0].contains(.readable) {
                for _ in 0..<Self.drainBatch where !stop.isRequested {
                    guard let frames = try requests.receiveMessage(dontWait: true) else { break }
                    let message = RoutedMessage(frames: frames)
                    try requests.send(message.reply(builder.reply(to: message, lastSequence: publisher.lastSequence)), dontWait: true)
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
    /// The publisher's epoch, carried by its events and timeline snapshots.
    let epoch: String

    /// The reply to `message`; `lastSequence` is the publisher's, which a timeline snapshot reflects.
    func reply(to message: RoutedMessage, lastSequence: UInt64) -> Data {
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
            case .snapshot(let prefix):
                let widgets = replicas.allWidgets.filter { Topic.timeline(kind: $0.kind, user: $0.user).hasPrefix(prefix) }
                let body = TimelineSnapshotBody(
                    epoch: epoch, sequence: lastSequence, timelines: widgets.map { replicas.timeline(kind: $0.kind, user: $0.user) })
                return try codec.reply(to: request.id, user: nil, type: .timelineSnapshotReply, body: body)
            case .intent, .setTimeZone, .appForeground, .pendingRecords, .pendingUsers, .acknowledgeRecords, .sync, .syncStatus:
                return codec.errorReply(
                    to: request.id, user: request.user, code: .unknownType,
                    message: "\(request.type.rawValue) is not served by timeline-service")
            }
        } catch {
            return codec.errorReply(to: request.id, user: request.user, code: .internalError, message: "\(error)")
        }
    }

    /// One `TimelineChanged` per widget whose state or metrics changed or whose timeline ran
    /// out; a burst of changes to the same widget is coalesced into its latest version, as a
    /// widget needs only the newest timeline. Each with the date it runs out, for its refresh.
    func timelineEvents(
        for changed: [(widget: WidgetReplicas.Widget, causedBy: String?)], firstSequence: UInt64, now: Date
    ) throws -> [(widget: WidgetReplicas.Widget, topic: String, sequence: UInt64, payload: Data, validUntil: Date?)] {
        try changed.enumerated().map { offset, affected in
            let (widget, sequence) = (affected.widget, firstSequence + UInt64(offset))
            let timeline = replicas.timeline(kind: widget.kind, user: widget.user, now: now)
            let envelope = Envelope(
                type: MessageType.timelineChanged.rawValue, user: widget.user, sentAt: now,
                body: TimelineChangedBody(epoch: epoch, sequence: sequence, causedBy: affected.causedBy, timeline: timeline))
            return (widget, Topic.timeline(kind: widget.kind, user: widget.user), sequence, try codec.encode(envelope), timeline.validUntil)
        }
    }
}
