import Foundation
import Logging
import ServiceSupport
import Synchronization
import WidgetBusProtocol
import ZeroMQ

/// Something a client or intent-handler asked of the agent, handed from the bus thread to the
/// scheduler.
enum BusTrigger: Sendable {
    /// `AppForegrounded` on intent-handler's state publisher: the seed's moment to sync.
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
/// - async → bus: ``deliver(_:)`` appends to an outbox (a mutex-guarded array) and rings a
///   doorbell — an inproc PUSH owned by the intent-handler thread, PULLed in the bus thread's
///   poll — so a reply or result leaves at once instead of at the next 100 ms poll timeout.
final class SyncBus: IntentHandlerClient, Sendable {
    struct Configuration: Sendable {
        var syncEndpoint: String
        var syncEventsEndpoint: String
        var intentsEndpoint: String
        var stateEventsEndpoint: String
    }

    struct Stopped: Error, CustomStringConvertible {
        var description: String { "sync-agent is stopping" }
    }

    static let pollIntervalMilliseconds = 100
    static let drainBatch = 256

    let configuration: Configuration
    let logger: Logger
    private let context: ZMQContext
    private let doorbellAddress = "inproc://sync-agent-doorbell"
    private let outbox = Mutex<[BusDelivery]>([])
    private let intentJobs = IntentJobQueue()
    private let stop = StopSignal()

    init(configuration: Configuration, logger: Logger) throws {
        self.configuration = configuration
        self.logger = logger
        context = try ZMQContext()
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

    /// Hands `delivery` to the bus thread and wakes it.
    func deliver(_ delivery: BusDelivery) {
        outbox.withLock { $0.append(delivery) }
        intentJobs.ringDoorbell()
    }

    // MARK: - Bus thread

    private func serveBus(onTrigger: @Sendable (BusTrigger) -> Bool) throws {
        defer {
            intentJobs.close()  // also when a bind fails before the intent-handler thread starts
            context.terminate()
        }
        let codec = WireCodec()
        let requests = try ZMQSocket(context: context, type: .router)
        defer { requests.close() }
        try requests.setLinger(milliseconds: 500)
        try requests.setMaxMessageSize(bytes: ProtocolLimits.maxTransportBytes)
        try requests.bind(BusEndpoint.bindAddress(for: configuration.syncEndpoint))
        let publisher = try EventPublisher(
            name: "sync-agent", epoch: PublisherEpoch.random(), context: context, bindTo: configuration.syncEventsEndpoint, lastSequence: 0, codec: codec)
        defer { publisher.close() }
        let foreground = try ZMQSocket(context: context, type: .sub)
        defer { foreground.close() }
        try foreground.setLinger(milliseconds: 0)
        try foreground.subscribe(Topic.appForegrounded(user: ""))
        try foreground.connect(configuration.stateEventsEndpoint)
        let doorbell = try ZMQSocket(context: context, type: .pull)
        defer { doorbell.close() }
        try doorbell.setLinger(milliseconds: 0)
        try doorbell.bind(doorbellAddress)

        let intentsThreadDone = DispatchSemaphore(value: 0)
        let intentsThread = Thread { [self] in
            serveIntentHandlerRequests()
            intentsThreadDone.signal()
        }
        intentsThread.name = "sync-agent-intents"
        intentsThread.start()
        defer {
            intentJobs.close()
            intentsThreadDone.wait()
        }

        var latest: [String: SyncResult] = [:]
        logger.info(
            "sync-agent bus ready",
            metadata: [
                "sync": "\(configuration.syncEndpoint)", "events": "\(configuration.syncEventsEndpoint)",
                "intents": "\(configuration.intentsEndpoint)", "stateEvents": "\(configuration.stateEventsEndpoint)",
            ])
        while !stop.isRequested {
            let untilHeartbeat = try publisher.heartbeatIfDue()
            let ready = try ZMQPoller.poll(
                [(requests, .readable), (foreground, .readable), (doorbell, .readable)],
                timeoutMilliseconds: min(untilHeartbeat, Self.pollIntervalMilliseconds))
            if ready[2].contains(.readable) {
                while try doorbell.receiveMessage(dontWait: true) != nil {}
            }
            try sendOutbox(requests: requests, publisher: publisher, latest: &latest, codec: codec)
            if ready[0].contains(.readable) {
                for _ in 0..<Self.drainBatch {
                    guard let frames = try requests.receiveMessage(dontWait: true) else { break }
                    let message = RoutedMessage(frames: frames)
                    if let reply = answer(message, latest: latest, onTrigger: onTrigger, codec: codec) {
                        try requests.send(message.reply(reply), dontWait: true)
                    }
                }
            }
            if ready[1].contains(.readable) {
                while let frames = try foreground.receiveMessage(dontWait: true) {
                    guard frames.count == 2,
                        let event = try? codec.decode(Envelope<AppForegroundedBody>.self, from: frames[1]),
                        event.type == MessageType.appForegrounded.rawValue
                    else { continue }
                    _ = onTrigger(.foreground(user: event.body.user))
                }
            }
        }
        // Results of the passes that finished while stopping.
        try sendOutbox(requests: requests, publisher: publisher, latest: &latest, codec: codec)
        logger.info("sync-agent bus stopping", metadata: ["sequence": "\(publisher.lastSequence)"])
    }

    /// The immediate reply to a request, or nil when the reply comes later (a sync pass).
    private func answer(
        _ message: RoutedMessage, latest: [String: SyncResult], onTrigger: (BusTrigger) -> Bool, codec: WireCodec
    ) -> Data? {
        let request: Request
        switch message.request(codec: codec, Request.decode) {
        case .success(let decoded): request = decoded
        case .failure(let refused): return refused.reply
        }
        do {
            switch request.body {
            case .ping:
                return try codec.reply(to: request.id, user: request.user, type: .pong, body: EmptyBody())
            case .sync:
                let user = request.user!
                guard onTrigger(.syncNow(user: user, reply: ReplyRoute(route: message.route, requestID: request.id))) else {
                    return codec.errorReply(to: request.id, user: user, code: .unavailable, message: "sync-agent is stopping")
                }
                return nil
            case .syncStatus:
                let results = request.user.map { user in latest[user].map { [$0] } ?? [] }
                    ?? latest.values.sorted { $0.user < $1.user }
                return try codec.reply(to: request.id, user: request.user, type: .syncStatusReply, body: SyncStatusBody(results: results))
            default:
                return codec.errorReply(
                    to: request.id, user: request.user, code: .unknownType,
                    message: "\(request.type.rawValue) is not served by sync-agent")
            }
        } catch {
            return codec.errorReply(to: request.id, user: request.user, code: .internalError, message: "\(error)")
        }
    }

    private func sendOutbox(
        requests: ZMQSocket, publisher: EventPublisher, latest: inout [String: SyncResult], codec: WireCodec
    ) throws {
        let deliveries = outbox.withLock { outbox in
            defer { outbox.removeAll() }
            return outbox
        }
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
                    let payload = try codec.reply(to: reply.requestID, user: result.user, type: .syncReply, body: result)
                    try requests.send(reply.route + [payload], dontWait: true)
                }
            case .error(let replies, let user, let code, let message):
                for reply in replies {
                    let payload = codec.errorReply(to: reply.requestID, user: user, code: code, message: message)
                    try requests.send(reply.route + [payload], dontWait: true)
                }
            }
        }
    }

    // MARK: - intent-handler thread

    private func serveIntentHandlerRequests() {
        let client = RequestClient(context: context, endpoint: configuration.intentsEndpoint)
        let doorbell: ZMQSocket
        do {
            doorbell = try ZMQSocket(context: context, type: .push)
            try doorbell.setLinger(milliseconds: 0)
            try doorbell.connect(doorbellAddress)
        } catch {
            logger.critical("sync-agent cannot open its doorbell socket", metadata: ["error": "\(error)"])
            intentJobs.close()
            return
        }
        defer { doorbell.close() }
        while let job = intentJobs.next() {
            switch job {
            case .ringDoorbell:
                // A full queue means a ring is already waiting: nothing is lost.
                _ = try? doorbell.send(Data(), dontWait: true)
            case .request(let payload, let continuation):
                continuation.resume(with: Result { try client.request(payload) })
            }
        }
        withExtendedLifetime(client) {}
    }
}

/// The intent-handler thread's work queue: requests to send, and doorbell rings (which go first,
/// coalesced). The thread blocks on the condition while there is nothing to do.
private final class IntentJobQueue: @unchecked Sendable {
    enum Job {
        case ringDoorbell
        case request(Data, CheckedContinuation<Data, any Error>)
    }

    // Guarded by `condition`.
    private let condition = NSCondition()
    private var requests: [(Data, CheckedContinuation<Data, any Error>)] = []
    private var ringPending = false
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

    func ringDoorbell() {
        condition.lock()
        ringPending = true
        condition.signal()
        condition.unlock()
    }

    /// The next job, waiting for one; nil once closed.
    func next() -> Job? {
        condition.lock()
        defer { condition.unlock() }
        while !ringPending, requests.isEmpty, !closed { condition.wait() }
        if closed { return nil }
        if ringPending {
            ringPending = false
            return .ringDoorbell
        }
        let (payload, continuation) = requests.removeFirst()
        return .request(payload, continuation)
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
