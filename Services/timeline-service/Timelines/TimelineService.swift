import BusRuntime
import Foundation
import Logging
import Metrics
import Observability
import ReplicatedWidgets
import ServiceSupport
import W3CTraceContext
import WidgetBusProtocol
import WidgetDomain

/// Derives timelines from intent-handler's state and metrics-ingest's aggregates — the only
/// service that does: keeps a replica of each (re-synced from snapshots at start and on any gap),
/// answers timeline requests, and publishes a new timeline for every widget whose state or
/// metrics changed (a measurement reaches the Stress Monitor widget at once) and for every
/// published timeline that runs out, at its `validUntil`. Followers such as snapshot-writer take
/// those bytes as they are and re-sync from its timeline snapshot.
public struct TimelineService: BusService {
    public struct Configuration: Sendable {
        var stateEventsEndpoint: String
        var snapshotEndpoint: String
        var metricsEventsEndpoint: String
        var metricsSnapshotEndpoint: String
        var timelinesEndpoint: String
        var timelineEventsEndpoint: String
        var binding: BusBinding

        public init(environment: [String: String]) throws {
            stateEventsEndpoint = BusEndpoint.stateEvents.resolve(in: environment)
            snapshotEndpoint = BusEndpoint.stateSnapshot.resolve(in: environment)
            metricsEventsEndpoint = BusEndpoint.metricsEvents.resolve(in: environment)
            metricsSnapshotEndpoint = BusEndpoint.metricsSnapshot.resolve(in: environment)
            timelinesEndpoint = BusEndpoint.timelines.resolve(in: environment)
            timelineEventsEndpoint = BusEndpoint.timelineEvents.resolve(in: environment)
            binding = try BusBinding(environment: environment)
        }
    }

    /// The soonest a timeline is published again for time alone: one that runs out the moment it
    /// is built would otherwise be published on every turn.
    static let minimumRefresh: TimeInterval = 1

    let configuration: Configuration
    let logger: Logger

    public init(configuration: Configuration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    public var name: String { "timeline-service" }
    public var binding: BusBinding { configuration.binding }

    public func start(on bus: Bus) throws {
        let replicas = try WidgetReplicas(
            bus: bus, stateEventsEndpoint: configuration.stateEventsEndpoint,
            stateSnapshotEndpoint: configuration.snapshotEndpoint, metricsEventsEndpoint: configuration.metricsEventsEndpoint,
            metricsSnapshotEndpoint: configuration.metricsSnapshotEndpoint, logger: logger)
        let publisher = try bus.publisher(
            name: "timeline-service", epoch: PublisherEpoch.random(), at: configuration.timelineEventsEndpoint, lastSequence: 0,
            follows: { [clock = bus.clock] in replicas.followedPositions(at: clock.now) })
        let builder = TimelineResponder(replicas: replicas, codec: bus.codec, epoch: publisher.epoch)
        var refreshes = RefreshSchedule<UserWidget>()
        let metrics = TimelineMetrics()
        func publish(_ widgets: [(widget: UserWidget, cause: Cause?)], now: Date) throws {
            for event in try builder.timelineEvents(for: widgets, firstSequence: publisher.lastSequence + 1, now: now) {
                try publisher.publish(topic: event.topic, sequence: event.sequence, payload: event.payload, trace: event.trace)
                metrics.published[event.widget.kind]?.increment()
                if let validUntil = event.validUntil {
                    refreshes.schedule(event.widget, at: max(validUntil, now.addingTimeInterval(Self.minimumRefresh)))
                }
            }
        }
        // What the replicas took this turn is published before a request is answered, so a
        // timeline snapshot never shows more than the sequence it reports. A timeline asked at a
        // version the replica has not reached waits for it (read your own writes).
        let clock = bus.clock
        var waiting = WaitingTimelineRequests()
        let replier = try bus.requests(at: configuration.timelinesEndpoint, as: TimelinesRequest.self) { request, message in
            try publish(replicas.takeChanges(), now: clock.now)
            guard builder.mustWait(request) else {
                return try builder.reply(to: request, lastSequence: publisher.lastSequence, now: clock.now)
            }
            guard !waiting.isFull else { return builder.notReachedReply(to: request, because: .full) }
            waiting.add(request, route: message.route, now: clock.now)
            metrics.waiting.record(waiting.count)
            return nil
        }
        bus.afterMessages { now in
            try publish(replicas.takeChanges(), now: now)
            let answerable = waiting.takeAnswerable({ !builder.mustWait($0.request) })
            for request in answerable {
                try replier.send(builder.answer(request.request, lastSequence: publisher.lastSequence, now: now), to: request.route)
            }
            if !answerable.isEmpty { metrics.waiting.record(waiting.count) }
        }
        bus.timer(dueAt: { waiting.nextDeadline }) { now in
            for request in waiting.takeExpired(at: now) {
                try replier.send(builder.notReachedReply(to: request.request, because: .timedOut), to: request.route)
            }
            metrics.waiting.record(waiting.count)
        }
        bus.onStop { _ in
            for request in waiting.takeAll() {
                try replier.send(builder.notReachedReply(to: request.request, because: .stopping), to: request.route)
            }
        }
        // A widget published again since it was scheduled has a later date: only those that
        // really ran out come due.
        bus.timer(dueAt: { refreshes.nextDue }) { now in
            try publish(
                refreshes.takeDue(now: now).filter { replicas.hasContent(user: $0.user, kind: $0.kind) }.map { ($0, nil) }, now: now)
        }

        logger.info(
            "timeline-service ready",
            metadata: [
                "widgetbus.epoch": "\(publisher.epoch)", "widgetbus.endpoint.timelines": "\(configuration.timelinesEndpoint)", "widgetbus.endpoint.timeline_events": "\(configuration.timelineEventsEndpoint)",
                "widgetbus.endpoint.state_events": "\(configuration.stateEventsEndpoint)", "widgetbus.endpoint.state_snapshot": "\(configuration.snapshotEndpoint)",
                "widgetbus.endpoint.metrics_events": "\(configuration.metricsEventsEndpoint)", "widgetbus.endpoint.metrics_snapshot": "\(configuration.metricsSnapshotEndpoint)",
            ])
        bus.onStop { _ in
            logger.info("timeline-service stopping")
        }
    }
}

extension TimelineService {
    /// What timeline-service reports beside the bus's metrics (docs/OBSERVABILITY.md).
    struct TimelineMetrics {
        /// `widgetbus_timelines_published_total{kind}`: timelines built and published, for a
        /// change or a refresh at a policy's date.
        let published = Dictionary(uniqueKeysWithValues: WidgetKind.allCases.map {
            ($0, Counter(MetricCatalog.timelinesPublished, ["kind": $0.rawValue]))
        })
        /// `widgetbus_timeline_requests_waiting`: timeline requests waiting for their version.
        let waiting = Gauge(MetricCatalog.timelineRequestsWaiting)
    }
}

/// Builds timeline replies and events from the replicas; the service only wires it to the bus.
struct TimelineResponder {
    let replicas: WidgetReplicas
    let codec: WireCodec
    /// The publisher's epoch, carried by its events and timeline snapshots.
    let epoch: String

    /// Whether `request` must wait: a timeline asked at a version of intent-handler's the state
    /// replica has not applied yet, or of a kind that is not ready.
    func mustWait(_ request: TimelinesRequest) -> Bool {
        guard case .timeline(let kind, let minimumVersion?) = request.body else { return false }
        return !replicas.isReady(kind) || replicas.state.sequence < minimumVersion
    }

    /// Why a timeline request that waits for its version is answered without it.
    enum NotReached {
        /// Too many requests wait already.
        case full
        /// Its wait ran out.
        case timedOut
        /// The service is stopping.
        case stopping
    }

    /// The `unavailable` reply to a timeline request whose `minimumVersion` was not reached.
    func notReachedReply(to request: TimelinesRequest, because reason: NotReached) -> Data {
        let why =
            switch reason {
            case .full: "too many requests wait for a version already"
            case .timedOut: "not within \(WaitingTimelineRequests.longestWait) s"
            case .stopping: "timeline-service is stopping"
            }
        let state =
            if case .timeline(let kind, _) = request.body, !replicas.isReady(kind) {
                "has not synced with its sources yet"
            } else {
                "has not reached version \(request.minimumVersion ?? 0) (it is at \(replicas.state.sequence))"
            }
        return codec.errorReply(
            to: request.id, user: request.user, code: .unavailable, message: "timeline-service \(state): \(why); retry shortly")
    }

    /// The reply to a request answered after it waited: ``reply(to:lastSequence:now:)``, or its
    /// `internal` error, as a request answered at once would get.
    func answer(_ request: TimelinesRequest, lastSequence: UInt64, now: Date) -> Data {
        do {
            return try reply(to: request, lastSequence: lastSequence, now: now)
        } catch {
            return codec.errorReply(to: request.id, user: request.user, code: .internalError, message: "\(error)")
        }
    }

    /// The reply to `request` at `now`; `lastSequence` is the publisher's, which a timeline
    /// snapshot reflects.
    func reply(to request: TimelinesRequest, lastSequence: UInt64, now: Date) throws -> Data {
        switch request.body {
        case .ping:
            return try codec.reply(to: request.id, user: request.user, type: .pong, body: EmptyBody())
        case .timeline(let kind, _):
            guard replicas.isReady(kind) else {
                let owners = kind.showsMetrics ? "intent-handler and metrics-ingest" : "intent-handler"
                return codec.errorReply(
                    to: request.id, user: request.user, code: .unavailable,
                    message: "timeline-service has not synced with \(owners) yet; retry shortly")
            }
            let user = request.user!
            return try codec.reply(
                to: request.id, user: user, type: .timelineReply, body: replicas.timeline(kind: kind, user: user, now: now))
        case .snapshot(let prefix):
            let widgets = replicas.allWidgets.filter { Topic.timeline(kind: $0.kind, user: $0.user).hasPrefix(prefix) }
            let body = TimelineSnapshotBody(
                epoch: epoch, sequence: lastSequence, timelines: widgets.map { replicas.timeline(kind: $0.kind, user: $0.user, now: now) })
            return try codec.reply(to: request.id, user: nil, type: .timelineSnapshotReply, body: body)
        case .notServed:
            return codec.notServedReply(to: request, "by timeline-service")
        }
    }

    /// A `TimelineChanged` to publish, with the date its timeline runs out (for its refresh) and
    /// the trace it continues.
    struct TimelineEvent {
        let widget: UserWidget
        let topic: String
        let sequence: UInt64
        let payload: Data
        let validUntil: Date?
        let trace: TraceContext?
    }

    /// One `TimelineChanged` per widget whose state or metrics changed or whose timeline ran
    /// out; a burst of changes to the same widget is coalesced into its latest version, as a
    /// widget needs only the newest timeline. Each names the message behind its latest change and
    /// continues that message's trace; a refresh has neither.
    func timelineEvents(
        for changed: [(widget: UserWidget, cause: Cause?)], firstSequence: UInt64, now: Date
    ) throws -> [TimelineEvent] {
        try changed.enumerated().map { offset, affected in
            try MessageSpan.run("build timeline", continuing: affected.cause?.trace) { trace in
                let (widget, sequence) = (affected.widget, firstSequence + UInt64(offset))
                let timeline = replicas.timeline(kind: widget.kind, user: widget.user, now: now)
                var envelope = Envelope(
                    type: MessageType.timelineChanged.rawValue, user: widget.user, sentAt: now,
                    body: TimelineChangedBody(epoch: epoch, sequence: sequence, causedBy: affected.cause?.id, timeline: timeline))
                envelope.trace = trace
                return TimelineEvent(
                    widget: widget, topic: Topic.timeline(kind: widget.kind, user: widget.user), sequence: sequence,
                    payload: try codec.encode(envelope), validUntil: timeline.validUntil, trace: trace)
            }
        }
    }
}
