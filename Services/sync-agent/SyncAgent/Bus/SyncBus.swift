import BusRuntime
import Foundation
import Logging
import ServiceSupport
import Synchronization
import WidgetBusProtocol

/// Something a client or intent-handler asked of the agent, handed from the bus thread to the
/// scheduler.
enum BusTrigger: Sendable {
    /// `AppForegrounded` on intent-handler's state publisher: a user opened the app, so their
    /// pending records are synced now.
    case foreground(user: String)
    /// `SyncRequest`: run a pass now and answer through `reply`.
    case syncNow(user: String, reply: ReplyRoute)
}

/// Where to send the answer to a `SyncRequest`: the ROUTER's routing frames and the request id.
struct ReplyRoute: Sendable {
    var route: [Data]
    var requestID: String
}

/// What the async side hands to the bus thread.
enum BusDelivery: Sendable {
    /// A finished pass: publish `SyncCompleted`, keep it for `SyncStatusRequest`, answer `replies`.
    case result(SyncResult, replies: [ReplyRoute])
    /// Answer these requests with an error (e.g. the agent is stopping).
    case error([ReplyRoute], user: String, code: ErrorCode, message: String)
    /// Send this request to intent-handler; its envelope id is `id`, its reply goes to the pass
    /// waiting for it.
    case request(Data, id: String)
    /// The agent is stopping: requests to intent-handler still unanswered after `grace` fail.
    case finishRequests(within: TimeInterval)
}

/// sync-agent's ZeroMQ side, and the bridge between it and the async sync work.
///
/// libzmq sockets are not thread-safe and their calls block, so every socket lives on one
/// dedicated thread, the bus's, never on the Swift concurrency pool (principle 7): the ROUTER at
/// `WIDGETBUS_SYNC` (`SyncRequest`, `SyncStatusRequest`, `Ping`), the PUB at
/// `WIDGETBUS_SYNC_EVENTS` (`SyncCompleted` with the agent's own sequence, heartbeats), a SUB on
/// `WIDGETBUS_STATE_EVENTS` for `state.foreground.` (`AppForegrounded`), and a DEALER to
/// `WIDGETBUS_INTENTS` for the passes' requests, each resent with its id until answered
/// (``ResendingRequester``), so no call ever blocks the thread. It keeps the latest result per
/// user, so status requests are answered right there.
///
/// The bridge, in both directions:
///
/// - bus → async: each trigger is yielded into the scheduler's `AsyncStream` (`onTrigger`);
/// - async → bus: ``deliver(_:)`` and ``request(_:)`` post to the bus's ``BusMailbox``, which
///   wakes its poll, so a reply, result or request leaves at once; a request's reply resumes the
///   pass waiting for it (``PendingReplies``).
final class SyncBus: IntentHandlerClient, Sendable {
    struct Configuration: Sendable {
        var syncEndpoint: String
        var syncEventsEndpoint: String
        var intentsEndpoint: String
        var stateEventsEndpoint: String
        var binding: BusBinding
    }

    struct Stopped: Error, CustomStringConvertible {
        var description: String { "sync-agent is stopping" }
    }

    /// A request payload without an envelope id: it could never be matched with its reply.
    struct UnidentifiedRequest: Error, CustomStringConvertible {
        var description: String { "a request to intent-handler has no envelope id" }
    }

    /// How long a request to intent-handler waits for its reply before it is sent again, and how
    /// many times it is sent before the pass fails.
    static let requestResendAfter: TimeInterval = 2
    static let requestAttempts = 3

    let configuration: Configuration
    let logger: Logger
    private let outbox: BusMailbox<BusDelivery>
    private let replies = PendingReplies()
    private let stop = StopSignal()

    init(configuration: Configuration, logger: Logger) throws {
        self.configuration = configuration
        self.logger = logger
        outbox = try BusMailbox()
    }

    /// Runs the bus thread until ``shutdown()`` or cancellation. `onTrigger` returns false when the
    /// scheduler no longer takes triggers.
    func run(onTrigger: @escaping @Sendable (BusTrigger) -> Bool) async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let thread = Thread { [self] in
                    continuation.resume(with: Result { try serveBus(onTrigger: onTrigger) })
                }
                thread.name = "sync-agent-bus"
                thread.start()
            }
        } onCancel: {
            shutdown()
        }
    }

    /// Asks the bus thread to finish: it sends what is in the outbox and closes its sockets;
    /// requests to intent-handler still waiting fail.
    func shutdown() {
        stop.request()
    }

    /// Requests to intent-handler not answered within `grace` fail, and later ones at once, so
    /// that a stop waits for an unresponsive intent-handler no longer than that.
    func finishRequests(within grace: TimeInterval) {
        outbox.post(.finishRequests(within: grace))
    }

    // MARK: - Async side

    /// Sends `payload` to intent-handler (resent with the same id on silence) and returns the
    /// reply payload.
    func request(_ payload: Data) async throws -> Data {
        guard let id = JSONFieldScanner(payload).string("id") else { throw UnidentifiedRequest() }
        return try await withCheckedThrowingContinuation { continuation in
            guard replies.await(id, continuation) else { return }
            if !outbox.post(.request(payload, id: id)) { replies.fail(id, with: Stopped()) }
        }
    }

    /// Hands `delivery` to the bus thread and wakes it; once the bus has closed it is dropped
    /// (its requesters retry).
    func deliver(_ delivery: BusDelivery) {
        outbox.post(delivery)
    }

    // MARK: - Bus thread

    private func serveBus(onTrigger: @escaping @Sendable (BusTrigger) -> Bool) throws {
        defer { replies.failAll(with: Stopped()) }  // also when a bind fails
        let bus = try Bus(binding: configuration.binding)
        defer { bus.close() }
        let codec = bus.codec
        let clock = bus.clock
        var latest: [String: SyncResult] = [:]
        let publisher = try bus.publisher(
            name: "sync-agent", epoch: PublisherEpoch.random(), at: configuration.syncEventsEndpoint, lastSequence: 0)
        let requests = try bus.requests(at: configuration.syncEndpoint, as: SyncAgentRequest.self) { [self] request, message in
            try answer(request, route: message.route, latest: latest, onTrigger: onTrigger, codec: codec)
        }
        try bus.subscribe(to: configuration.stateEventsEndpoint, topics: [Topic.appForegrounded(user: "")]) { frames in
            guard frames.count == 2,
                let event = try? codec.decode(Envelope<AppForegroundedBody>.self, from: frames[1]),
                event.type == MessageType.appForegrounded.rawValue
            else { return }
            _ = onTrigger(.foreground(user: event.body.user))
        }
        let intents = try ResendingRequester(
            bus: bus, endpoint: configuration.intentsEndpoint, resendAfter: Self.requestResendAfter, attempts: Self.requestAttempts,
            logger: logger
        ) { [replies] id, outcome in
            replies.resume(id, with: outcome)
        }
        // Once stopping, requests still unanswered after the grace fail: the passes waiting for
        // them end, so the stop is not held by an unresponsive intent-handler. The grace is on the
        // monotonic clock: a step of the wall clock must not stretch it.
        var requestsEndAt: ContinuousClock.Instant?
        var requestsEnded = false
        bus.timer(dueBy: { requestsEnded ? nil : requestsEndAt }) { [replies] _ in
            guard let end = requestsEndAt, ContinuousClock.now >= end else { return }
            requestsEnded = true
            replies.failAll(with: Stopped())
            intents.abandonAll()
        }
        // Results of passes, including those that finish while stopping, and their requests.
        bus.receive(from: outbox) { [self] deliveries in
            for delivery in deliveries {
                switch delivery {
                case .request(let payload, let id):
                    // After the grace its pass has failed already: nothing to send.
                    if !requestsEnded { try intents.send(payload, id: id, now: clock.now) }
                case .finishRequests(let grace):
                    let end = ContinuousClock.now + .seconds(grace)
                    requestsEndAt = min(requestsEndAt ?? end, end)
                case .result(let result, let replies):
                    try publish(result, answering: replies, requests: requests, publisher: publisher, latest: &latest, codec: codec)
                case .error(let replies, let user, let code, let message):
                    for reply in replies {
                        try requests.send(codec.errorReply(to: reply.requestID, user: user, code: code, message: message), to: reply.route)
                    }
                }
            }
        }

        logger.info(
            "sync-agent bus ready",
            metadata: [
                "widgetbus.endpoint.sync": "\(configuration.syncEndpoint)", "widgetbus.endpoint.sync_events": "\(configuration.syncEventsEndpoint)",
                "widgetbus.endpoint.intents": "\(configuration.intentsEndpoint)", "widgetbus.endpoint.state_events": "\(configuration.stateEventsEndpoint)",
            ])
        bus.logNetworkExposure(to: logger)
        try bus.run(until: stop)
        logger.info("sync-agent bus stopping", metadata: ["widgetbus.sequence": "\(publisher.lastSequence)"])
    }

    /// The immediate reply to a request, or nil when the reply comes later (a sync pass).
    private func answer(
        _ request: SyncAgentRequest, route: [Data], latest: [String: SyncResult], onTrigger: (BusTrigger) -> Bool, codec: WireCodec
    ) throws -> Data? {
        switch request.body {
        case .ping:
            return try codec.reply(to: request.id, user: request.user, type: .pong, body: EmptyBody())
        case .sync:
            let user = request.user!
            guard onTrigger(.syncNow(user: user, reply: ReplyRoute(route: route, requestID: request.id))) else {
                return codec.errorReply(to: request.id, user: user, code: .unavailable, message: "sync-agent is stopping")
            }
            return nil
        case .syncStatus:
            let results = request.user.map { user in latest[user].map { [$0] } ?? [] }
                ?? latest.values.sorted { $0.user < $1.user }
            return try codec.reply(to: request.id, user: request.user, type: .syncStatusReply, body: SyncStatusBody(results: results))
        case .notServed:
            return codec.notServedReply(to: request, "by sync-agent")
        }
    }

    /// Publishes a pass's result and answers the requests waiting for it.
    private func publish(
        _ result: SyncResult, answering replies: [ReplyRoute], requests: Replier, publisher: EventPublisher,
        latest: inout [String: SyncResult], codec: WireCodec
    ) throws {
        latest[result.user] = result
        let sequence = publisher.lastSequence + 1
        let event = Envelope(
            type: MessageType.syncCompleted.rawValue, user: result.user,
            body: SyncCompletedBody(epoch: publisher.epoch, sequence: sequence, result: result))
        try publisher.publish(topic: Topic.syncCompleted(user: result.user), sequence: sequence, payload: try codec.encode(event))
        for reply in replies {
            try requests.send(try codec.reply(to: reply.requestID, user: result.user, type: .syncReply, body: result), to: reply.route)
        }
    }

}

/// The passes waiting for intent-handler's replies, by request id: resumed from the bus thread
/// with the reply, or failed — all of them once the agent stops, so no pass waits forever. Once
/// closed, a new request fails at once.
private final class PendingReplies: Sendable {
    private struct Table {
        var waiting: [String: CheckedContinuation<Data, any Error>] = [:]
        var closed: (any Error)?
    }

    private let table = Mutex(Table())

    /// Keeps `continuation` for the reply to `id`; false (and `continuation` failed) once closed.
    func await(_ id: String, _ continuation: CheckedContinuation<Data, any Error>) -> Bool {
        let closed = table.withLock { table in
            if table.closed == nil { table.waiting[id] = continuation }
            return table.closed
        }
        if let closed { continuation.resume(throwing: closed) }
        return closed == nil
    }

    func resume(_ id: String, with outcome: Result<Data, ResendingRequester.NoReply>) {
        table.withLock { $0.waiting.removeValue(forKey: id) }?.resume(with: outcome.mapError { $0 })
    }

    func fail(_ id: String, with error: any Error) {
        table.withLock { $0.waiting.removeValue(forKey: id) }?.resume(throwing: error)
    }

    /// Fails every pass waiting, and every later request.
    func failAll(with error: any Error) {
        let waiting = table.withLock { table in
            defer { (table.waiting, table.closed) = ([:], table.closed ?? error) }
            return table.waiting
        }
        for continuation in waiting.values { continuation.resume(throwing: error) }
    }
}
