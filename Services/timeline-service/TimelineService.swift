import Foundation
import Logging
import ServiceLifecycle
import ServiceSupport
import WidgetBusProtocol
import WidgetDomain
import ZeroMQ

/// Derives timelines from intent-handler's state: keeps a replica of the state (re-synced from
/// snapshots at start and on any gap), answers timeline requests, and publishes a new timeline
/// for every widget kind whose state changed.
struct TimelineService: Service {
    struct Configuration: Sendable {
        var stateEventsEndpoint: String
        var snapshotEndpoint: String
        var timelinesEndpoint: String
        var timelineEventsEndpoint: String

        init(environment: [String: String]) {
            stateEventsEndpoint = BusEndpoint.stateEvents.resolve(in: environment)
            snapshotEndpoint = BusEndpoint.stateSnapshot.resolve(in: environment)
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
            name: "timeline-service", context: context, bindTo: configuration.timelineEventsEndpoint, lastSequence: 0, codec: codec)
        defer { publisher.close() }
        let replica = try StateReplica(
            context: context, eventsEndpoint: configuration.stateEventsEndpoint,
            snapshotEndpoint: configuration.snapshotEndpoint, codec: codec, logger: logger)
        defer { replica.close() }
        let builder = TimelineResponder(replica: replica, codec: codec)

        logger.info(
            "timeline-service ready",
            metadata: [
                "timelines": "\(configuration.timelinesEndpoint)", "events": "\(configuration.timelineEventsEndpoint)",
                "stateEvents": "\(configuration.stateEventsEndpoint)", "snapshot": "\(configuration.snapshotEndpoint)",
            ])

        while !stop.isRequested {
            let untilHeartbeat = try publisher.heartbeatIfDue()
            let ready = try ZMQPoller.poll(
                [(requests, .readable)] + replica.pollItems,
                timeoutMilliseconds: min(untilHeartbeat, Self.pollIntervalMilliseconds))
            let changes = try replica.handle(ready: ready[1...])
            for event in try builder.timelineEvents(for: changes, firstSequence: publisher.lastSequence + 1) {
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

/// Builds timeline replies and events from the replica. Separate from the loop so the loop
/// only moves frames.
struct TimelineResponder {
    let replica: StateReplica
    let codec: WireCodec

    func reply(to message: RoutedMessage) -> Data {
        guard let payload = message.payload else {
            return codec.errorReply(
                to: nil, user: nil, code: .badFrames,
                message: "expected exactly one payload frame, got \(message.payloadFrames.count)")
        }
        let request: Request
        do {
            request = try Request.decode(payload, codec: codec)
        } catch {
            return codec.errorReply(toUndecodable: payload, error)
        }
        do {
            switch request.body {
            case .ping:
                return try codec.reply(to: request.id, user: request.user, type: .pong, body: EmptyBody())
            case .timeline(let kind):
                guard replica.snapshotCount > 0 else {
                    return codec.errorReply(
                        to: request.id, user: request.user, code: .unavailable,
                        message: "timeline-service has not synced with intent-handler yet; retry shortly")
                }
                let user = request.user!
                return try codec.reply(
                    to: request.id, user: user, type: .timelineReply, body: timeline(kind: kind, user: user))
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

    /// The timeline of `kind` for `user` as of now, in the user's zone; a user with no state gets
    /// the initial state's.
    func timeline(kind: WidgetKind, user: String, now: Date = Date()) -> TimelineBody {
        let record = replica.record(user: user, app: kind.app)
        let state = record?.state ?? .initial(for: kind.app)
        return TimelineBody(
            kind: kind, user: user, stateVersion: record?.version ?? 0,
            timeline: state.timeline(for: kind, now: now, timeZone: replica.timeZone(user: user)))
    }

    /// One `TimelineChanged` per kind of each changed state; a profile change touches every state
    /// of its user. A burst of changes to the same state is coalesced into its latest version, as
    /// a widget needs only the newest timeline.
    func timelineEvents(for changes: [StateReplica.Change], firstSequence: UInt64, now: Date = Date()) throws
        -> [(topic: String, sequence: UInt64, payload: Data)]
    {
        var causes: [StateReplica.Key: String?] = [:]
        var order: [StateReplica.Key] = []
        func touch(_ key: StateReplica.Key, _ cause: String?) {
            if causes.updateValue(cause, forKey: key) == nil { order.append(key) }
        }
        for change in changes {
            switch change {
            case .state(let record, let causedBy):
                touch(StateReplica.Key(user: record.user, app: record.app), causedBy)
            case .profile(let profile, let causedBy):
                for record in replica.records(user: profile.user) {
                    touch(StateReplica.Key(user: record.user, app: record.app), causedBy)
                }
            }
        }
        var sequence = firstSequence
        var events: [(topic: String, sequence: UInt64, payload: Data)] = []
        for key in order {
            for kind in WidgetKind.allCases where kind.app == key.app {
                let envelope = Envelope(
                    type: MessageType.timelineChanged.rawValue, user: key.user, sentAt: now,
                    body: TimelineChangedBody(
                        sequence: sequence, causedBy: causes[key] ?? nil, timeline: timeline(kind: kind, user: key.user, now: now)))
                events.append((Topic.timeline(kind: kind, user: key.user), sequence, try codec.encode(envelope)))
                sequence += 1
            }
        }
        return events
    }
}
