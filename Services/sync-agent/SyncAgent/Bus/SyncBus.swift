import Foundation
import Logging
import ServiceSupport
import WidgetBusProtocol
import ZeroMQ

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

/// What the async side hands back to the bus thread.
enum BusDelivery: Sendable {
    /// A finished pass: publish `SyncCompleted`, keep it for `SyncStatusRequest`, answer `replies`.
    case result(SyncResult, replies: [ReplyRoute])
    /// Answer these requests with an error (e.g. the agent is stopping).
    case error([ReplyRoute], user: String, code: ErrorCode, message: String)
}

/// sync-agent's ZeroMQ side, and the bridge between it and the async sync work.
///
/// libzmq sockets are not thread-safe and their calls block, so every socket lives on one of two
/// dedicated threads, never on the Swift concurrency pool (principle 7):
///
/// - the **bus thread** owns the sockets other processes talk to: the ROUTER at `WIDGETBUS_SYNC`
///   (`SyncRequest`, `SyncStatusRequest`, `Ping`), the PUB at `WIDGETBUS_SYNC_EVENTS`
///   (`SyncCompleted` with the agent's own sequence, heartbeats) and a SUB on
///   `WIDGETBUS_STATE_EVENTS` for `state.foreground.` (`AppForegrounded`). It keeps the latest
///   result per user, so status requests are answered right there.
/// - the **intent-handler thread** owns a Lazy Pirate ``RequestClient`` (REQ) to
///   `WIDGETBUS_INTENTS`. Its calls block for a round trip (longer when intent-handler is away),
///   which is why they are not on the bus thread.
///
/// The bridge, in both directions:
///
/// - bus → async: each trigger is yielded into the scheduler's `AsyncStream` (`onTrigger`);
/// - async → intent-handler: ``request(_:)`` queues the payload with a `CheckedContinuation` for
///   the intent-handler thread, which resumes it with the reply;
/// - async → bus: ``deliver(_:)`` posts to the bus's ``BusMailbox``, which wakes its poll, so a
///   reply or result leaves at once.
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

    let configuration: Configuration
    let logger: Logger
    private let outbox: BusMailbox<BusDelivery>
    private let intentJobs = IntentJobQueue()
    private let stop = StopSignal()

    init(configuration: Configuration, logger: Logger) throws {
        self.configuration = configuration
        self.logger = logger
        outbox = try BusMailbox()
    }

    /// Runs the bus thread (which starts and joins the intent-handler thread) until ``shutdown()``
    /// or cancellation. `onTrigger` returns false when the scheduler no longer takes triggers.
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

    /// Asks the bus thread to finish: it sends what is in the outbox, closes its sockets and
    /// stops the intent-handler thread.
    func shutdown() {
        stop.request()
    }

    // MARK: - Async side

    /// Sends `payload` to intent-handler (Lazy Pirate: resent with the same id on silence) and
    /// returns the reply payload.
    func request(_ payload: Data) async throws -> Data {
        try await withCheckedThrowingContinuation { continuation in
            intentJobs.submit(payload, continuation)
        }
    }

    /// Hands `delivery` to the bus thread and wakes it; once the bus has closed it is dropped
    /// (its requesters retry).
    func deliver(_ delivery: BusDelivery) {
        outbox.post(delivery)
    }

    // MARK: - Bus thread

    private func serveBus(onTrigger: @escaping @Sendable (BusTrigger) -> Bool) throws {
        defer { intentJobs.close() }  // also when a bind fails before the intent-handler thread starts
        let bus = try Bus(binding: configuration.binding)
        defer { bus.close() }
        let codec = bus.codec
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
        // Results of passes, including those that finish while stopping.
        bus.receive(from: outbox) { [self] deliveries in
            try send(deliveries, requests: requests, publisher: publisher, latest: &latest, codec: codec)
        }

        let intentsThreadDone = DispatchSemaphore(value: 0)
        let intentsThread = Thread { [self, context = bus.context] in
            serveIntentHandlerRequests(context: context)
            intentsThreadDone.signal()
        }
        intentsThread.name = "sync-agent-intents"
        intentsThread.start()
        defer {
            intentJobs.close()
            intentsThreadDone.wait()
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

    private func send(
        _ deliveries: [BusDelivery], requests: Replier, publisher: EventPublisher, latest: inout [String: SyncResult],
        codec: WireCodec
    ) throws {
        for delivery in deliveries {
            switch delivery {
            case .result(let result, let replies):
                latest[result.user] = result
                let sequence = publisher.lastSequence + 1
                let event = Envelope(
                    type: MessageType.syncCompleted.rawValue, user: result.user,
                    body: SyncCompletedBody(epoch: publisher.epoch, sequence: sequence, result: result))
                try publisher.publish(topic: Topic.syncCompleted(user: result.user), sequence: sequence, payload: try codec.encode(event))
                for reply in replies {
                    try requests.send(
                        try codec.reply(to: reply.requestID, user: result.user, type: .syncReply, body: result), to: reply.route)
                }
            case .error(let replies, let user, let code, let message):
                for reply in replies {
                    try requests.send(codec.errorReply(to: reply.requestID, user: user, code: code, message: message), to: reply.route)
                }
            }
        }
    }

    // MARK: - intent-handler thread

    private func serveIntentHandlerRequests(context: ZMQContext) {
        let client = RequestClient(context: context, endpoint: configuration.intentsEndpoint, security: configuration.binding.security)
        while let (payload, continuation) = intentJobs.next() {
            continuation.resume(with: Result { try client.request(payload) })
        }
        withExtendedLifetime(client) {}
    }
}

/// The intent-handler thread's work queue: requests to send. The thread blocks on the condition
/// while there is nothing to do.
private final class IntentJobQueue: @unchecked Sendable {
    // Guarded by `condition`.
    private let condition = NSCondition()
    private var requests: [(Data, CheckedContinuation<Data, any Error>)] = []
    private var closed = false

    func submit(_ payload: Data, _ continuation: CheckedContinuation<Data, any Error>) {
        condition.lock()
        guard !closed else {
            condition.unlock()
            continuation.resume(throwing: SyncBus.Stopped())
            return
        }
        requests.append((payload, continuation))
        condition.signal()
        condition.unlock()
    }

    /// The next request, waiting for one; nil once closed.
    func next() -> (Data, CheckedContinuation<Data, any Error>)? {
        condition.lock()
        defer { condition.unlock() }
        while requests.isEmpty, !closed { condition.wait() }
        if closed { return nil }
        return requests.removeFirst()
    }

    /// Stops the queue: jobs still waiting fail with ``SyncBus/Stopped``.
    func close() {
        condition.lock()
        closed = true
        let abandoned = requests
        requests.removeAll()
        condition.broadcast()
        condition.unlock()
        for (_, continuation) in abandoned { continuation.resume(throwing: SyncBus.Stopped()) }
    }
}
