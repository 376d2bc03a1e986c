import Foundation
import Logging
import Metrics
import ServiceSupport
import WidgetBusProtocol
import ZeroMQ

/// Why a ``Bus`` could not be set up.
public enum BusError: Error, CustomStringConvertible {
    /// The mailbox's wake-up pipe could not be made (the `errno`).
    case pipe(Int32)

    public var description: String {
        switch self {
        case .pipe(let code): "cannot make the bus mailbox's pipe: \(String(cString: strerror(code)))"
        }
    }
}

/// The one event loop every WidgetBus service runs on, on a thread of its own: libzmq sockets
/// belong to one thread, and a blocking poll must stay off the Swift concurrency pool.
///
/// A service declares its sockets by role — requests it answers, events it publishes, pushes it
/// pulls, publishers it subscribes to (or follows as a replica, ``SequencedReplica``) — each
/// with its handler, and its timers. One turn of the loop:
///
/// 1. wait until a socket is readable, a timer falls due, a paced socket's rest ends or
///    ``stopCheckInterval`` passes (the last fraction of a millisecond of a rest is slept, so
///    the other sockets wait that long too); not at all while requests an endpoint with an
///    admission took off its socket wait to be handled (``RequestAdmission``);
/// 2. run the handler of each readable socket, in the order the sockets were declared, with at
///    most its batch of messages, so a flood on one socket never starves the others (what is
///    left is taken on the next turn); a socket declared with a *pacing* then rests — is not
///    polled — for that long while rests pay (``SocketPacing``), so the messages that follow
///    close behind are taken together on one later turn;
/// 3. run the steps that follow the handlers (``afterMessages(_:)``), which see everything the
///    turn's messages brought;
/// 4. fire the timers that are due, in the order they were declared.
///
/// A request handler's error becomes that request's `internal_error` reply
/// (``requests(at:as:_:)``). Any other handler's error ends ``run(until:)`` with that error: a
/// service that cannot go on stops and is restarted, and loses nothing, since it commits before
/// it acknowledges. Time comes from the injected ``WallClock``, so a test drives timers by
/// moving the clock and calling ``turn(waitingAtMost:)``. Owned by the thread that runs it.
public final class Bus {
    /// The longest one wait lasts, and so how long a stop request can go unnoticed.
    public static let stopCheckInterval: TimeInterval = 0.1
    /// Messages a subscriber or request socket hands its handler per turn.
    public static let defaultBatch = 256
    /// Replies an endpoint with an admission queues for one client before libzmq's ROUTER drops
    /// more, silently. One client may carry many users' requests (app-gateway, the load
    /// generator), and under overload the endpoint refuses thousands in a turn: libzmq's default
    /// of 1,000 would lose replies to a client that reads them a moment late. Refusals are small
    /// (a few hundred bytes); endpoints without an admission keep libzmq's default.
    static let replyHighWaterMark: Int32 = 100_000

    public let context: ZMQContext
    public let clock: any WallClock
    public let codec: WireCodec
    /// Where the sockets that bind listen.
    public let binding: BusBinding
    /// The allow-lists the server sockets check clients against when the bus runs with CURVE,
    /// read when the first of them binds: a bus that only connects needs no more than the
    /// servers' keys in ``binding`` (clients prove the server is the endpoint's owner).
    private var security: BusSecurity?

    private final class Reader {
        let target: ZMQPollTarget
        let isActive: () -> Bool
        /// Whether messages taken on an earlier turn wait to be handled: then the reader takes
        /// on this turn whether its socket is readable or not.
        let waiting: () -> Bool
        /// Takes what is ready; returns how many messages it took.
        let take: () throws -> Int
        var pacing: SocketPacing?

        init(
            target: ZMQPollTarget, isActive: @escaping () -> Bool, pacing: SocketPacing?, waiting: @escaping () -> Bool = { false },
            take: @escaping () throws -> Int
        ) {
            self.target = target
            self.isActive = isActive
            self.pacing = pacing
            self.waiting = waiting
            self.take = take
        }
    }

    private struct Timer {
        let due: () -> Date?
        let fire: (Date) throws -> Void
    }

    private var readers: [Reader] = []
    private var timers: [Timer] = []
    private var afterMessageSteps: [(Date) throws -> Void] = []
    private var stopSteps: [(Date) throws -> Void] = []
    private var sockets: [ZMQSocket] = []
    private var closeMailboxes: [() -> Void] = []
    private var stopSignal: StopSignal?
    private var zapSocket: ZMQSocket?
    /// The ZAP handler, which also counts the handshakes the sockets' monitors report failed.
    private var zapHandler: ZAPHandler?
    /// Every CURVE server socket: those whose connections a reload that takes a key off their
    /// endpoint's allow-list drops (``dropConnections(revokedSince:security:logger:)``).
    private var curveServers: [CurveServer] = []
    private var hangUpListener: Int?
    /// Where the sockets that bind really listen, as libzmq reports it (``logNetworkExposure(to:)``).
    private var boundAddresses: [String] = []

    public init(clock: any WallClock = SystemClock(), codec: WireCodec = WireCodec(), binding: BusBinding = .loopback) throws {
        context = try ZMQContext()
        self.clock = clock
        self.codec = codec
        self.binding = binding
        // SIGHUP reloads the keys of a deployment with CURVE: it must not end any of its processes.
        if binding.security != nil { HangUpSignal.shared.install() }
    }

    /// Whether a stop was requested: a handler draining a batch finishes the message in hand and
    /// takes no more.
    public var isStopping: Bool { stopSignal?.isRequested ?? false }

    // MARK: - Sockets by role

    /// Answers requests at `endpoint` (a ROUTER): `answer` gets up to `batch` messages at once —
    /// a service that commits them together (a group commit) needs the batch — and returns one
    /// reply per message, in order, or nil for a request it will answer later through the
    /// returned ``Replier``.
    ///
    /// - Parameters:
    ///   - pacing: how long the socket rests after a batch it takes, while rests pay
    ///     (``SocketPacing``); 0 takes every request as soon as it arrives.
    ///   - admission: how long a request may wait before it is refused with `unavailable`
    ///     (``RequestAdmission``); nil leaves waiting requests in libzmq's queue, unbounded in time.
    ///   - hold: with an admission, asked each turn: while it gives a reason (a follower of the
    ///     service is behind), no request is handed to `answer`; they wait in the admission's
    ///     queue and are refused once their wait runs out, with that reason.
    @discardableResult
    public func replies(
        at endpoint: String, batch: Int, pacing: TimeInterval = 0, admission: RequestAdmission? = nil,
        heldWhile hold: @escaping () -> String? = { nil }, _ answer: @escaping ([RoutedMessage]) throws -> [Data?]
    ) throws -> Replier {
        let socket = try makeSocket(.router) {
            try $0.setLinger(milliseconds: 500)
            try $0.setMaxMessageSize(bytes: ProtocolLimits.maxTransportBytes)
            if admission != nil { try $0.setSendHighWaterMark(Self.replyHighWaterMark) }  // before the bind: connections take it from there
            try bind($0, at: endpoint)
        }
        let metrics = RequestMetrics(endpoint: binding.endpointName(of: endpoint))
        /// Answers `requests`, each taken off the socket at its `taken` time.
        func respond(_ requests: [(frames: [Data], taken: DispatchTime)]) throws {
            let messages = requests.map { RoutedMessage(frames: $0.frames, metrics: metrics) }
            var replied = 0
            for ((message, reply), request) in zip(zip(messages, try answer(messages)), requests) {
                guard let reply else { continue }
                try socket.send(message.reply(reply), dontWait: true)
                metrics.latency.recordNanoseconds(BusMetrics.nanoseconds(since: request.taken))
                replied += 1
            }
            metrics.replies.increment(by: replied)
        }
        guard let admission else {
            onMessages(of: socket, endpoint: metrics.endpoint, batch: batch, pacing: pacing, answersRequests: true) { frames in
                let taken = DispatchTime.now()
                try respond(frames.map { ($0, taken) })
            }
            return Replier(socket: socket, replies: metrics.replies)
        }
        let queue = RequestQueue(admission, endpoint: metrics.endpoint)
        let milliseconds = Int((admission.longestWait * 1000).rounded())
        /// Answers `unavailable` to `frames`' request: nothing of it was done.
        func refuse(_ frames: [Data], _ why: String) throws {
            let message = RoutedMessage(frames: frames)
            let reply = codec.errorReply(
                toUndecodable: message.payload ?? Data(),
                ProtocolError(.unavailable, "\(why) at \(metrics.endpoint); nothing was done: retry shortly"))
            try socket.send(message.reply(reply), dontWait: true)
            metrics.replies.increment()
            queue.shed()
        }
        /// Refuses the requests whose wait ran out at `now`, saying why they were held if they were.
        func refuseExpired(at now: Date, held: String?) throws {
            for expired in queue.takeExpired(at: now) {
                try refuse(
                    expired.frames,
                    "overloaded: the request waited \(milliseconds) ms for its turn" + (held.map { " (held back: \($0))" } ?? ""))
            }
        }
        // While held, nothing is taken on a turn the socket is quiet, so a timer ends the waits.
        timer(dueAt: { hold() == nil ? nil : queue.nextExpiry }) { now in
            try refuseExpired(at: now, held: hold())
            queue.recordDepth()
        }
        // What waits, in the queue or still on the socket, when the service stops: nothing is
        // handed over once a stop is requested, and nothing is left without an answer.
        onStop { _ in
            for waiting in queue.takeAll() { try refuse(waiting.frames, "the service is stopping") }
            while let frames = try socket.receiveMessage(dontWait: true) { try refuse(frames, "the service is stopping") }
            queue.recordDepth()
        }
        onMessages(
            of: socket, endpoint: metrics.endpoint, pacing: pacing, batch: batch, answersRequests: true,
            waiting: { [unowned self] in !queue.isEmpty && !isStopping && hold() == nil },
            take: { [unowned self] () throws -> [RequestQueue.Waiting] in
                guard !isStopping else { return [] }
                defer { queue.recordDepth() }
                let (now, uptime, held) = (clock.now, DispatchTime.now(), hold())
                try refuseExpired(at: now, held: held)
                // What waits on the socket, so that no request waits where its wait is not seen —
                // at most a drain's worth a turn, so that a flood cannot hold the turn: the rest
                // is taken on the next one, which comes at once. Once one request finds the queue
                // full, the later ones of the drain are refused too, keeping the order of arrival.
                var full = false
                for _ in 0..<RequestQueue.drainLimit {
                    guard let frames = try socket.receiveMessage(dontWait: true) else { break }
                    if !full, queue.add(frames, at: now, uptime: uptime) { continue }
                    full = true
                    try refuse(frames, "overloaded: too many requests wait for their turn")
                }
                return held == nil ? queue.takeNext(batch) : []
            }
        ) { (requests: [RequestQueue.Waiting]) in
            try respond(requests.map { ($0.frames, $0.uptime) })
        }
        return Replier(socket: socket, replies: metrics.replies)
    }

    /// Answers requests at `endpoint` one at a time, decoded as `Incoming`: a request that does not
    /// decode is answered with its error code here, and an error `answer` throws becomes the
    /// request's `internal_error` reply. `answer` returns nil for a request it answers later.
    @discardableResult
    public func requests<Incoming: DecodedRequest>(
        at endpoint: String, as _: Incoming.Type, _ answer: @escaping (Incoming, RoutedMessage) throws -> Data?
    ) throws -> Replier {
        try replies(at: endpoint, batch: Self.defaultBatch) { [codec] messages in
            messages.map { message in
                message.answer(as: Incoming.self, codec: codec, reply: { $0 }) { try answer($0, message) }
            }
        }
    }

    /// Publishes events at `endpoint` (a PUB), with a heartbeat the bus sends on time. A publisher
    /// that follows other streams passes `follows`, its position in each, which its heartbeats
    /// carry, every ``EventPublisher/progressInterval``.
    public func publisher(
        name: String, epoch: String, at endpoint: String, lastSequence: UInt64, follows: (() -> [FollowedPosition])? = nil
    ) throws -> EventPublisher {
        let socket = try makeSocket(.pub) {
            try $0.setLinger(milliseconds: 500)
            try $0.setSendHighWaterMark(EventPublisher.sendHighWaterMark)
            try bind($0, at: endpoint)
        }
        let publisher = EventPublisher(
            name: name, epoch: epoch, socket: socket, endpoint: binding.endpointName(of: endpoint), lastSequence: lastSequence,
            follows: follows, codec: codec, now: clock.now)
        timer(dueAt: { publisher.nextHeartbeat }) { now in try publisher.sendHeartbeat(now: now) }
        return publisher
    }

    /// Takes pushed messages at `endpoint` (a PULL), up to `batch` per turn, while `isActive`
    /// holds; while it does not, they wait in the socket.
    public func pull(
        at endpoint: String, batch: Int, while isActive: @escaping () -> Bool = { true },
        _ take: @escaping ([[Data]]) throws -> Void
    ) throws {
        let socket = try makeSocket(.pull) {
            try $0.setLinger(milliseconds: 0)
            try $0.setMaxMessageSize(bytes: ProtocolLimits.maxTransportBytes)
            try bind($0, at: endpoint)
        }
        onMessages(of: socket, endpoint: binding.endpointName(of: endpoint), batch: batch, while: isActive, take)
    }

    /// Follows the publisher at `endpoint` (a SUB) for the topics starting with any of
    /// `topics`; `handle` gets each message's frames as it is taken off the socket, so that a
    /// turn that takes a large batch holds one message at a time.
    ///
    /// - Parameters:
    ///   - batch: the most messages one turn takes. A follower that folds events into a map of
    ///     its own (the latest per key) and then does slow work at its own pace takes more, so
    ///     that a backlog waits in that bounded map, not in libzmq's queues, which hold every
    ///     event up to the high-water mark.
    ///   - pacing: how long the socket rests after a turn it takes messages on, while rests pay
    ///     (``SocketPacing``); 0 takes every message as soon as it arrives.
    public func subscribe(
        to endpoint: String, topics: [String], batch: Int = Bus.defaultBatch, pacing: TimeInterval = 0,
        _ handle: @escaping ([Data]) throws -> Void
    ) throws {
        let socket = try makeSocket(.sub) {
            try $0.setLinger(milliseconds: 0)
            try $0.setReceiveHighWaterMark(EventPublisher.sendHighWaterMark)
            for topic in topics { try $0.subscribe(topic) }
            try $0.connect(endpoint, security: binding.security)
        }
        onEachMessage(of: socket, endpoint: binding.endpointName(of: endpoint), batch: batch, pacing: pacing, handle)
    }

    /// A DEALER connected to `endpoint` for requests whose replies come back on their own time
    /// (a replica's snapshot requests); `handle` gets each reply's frames.
    public func dealer(connectedTo endpoint: String, _ handle: @escaping ([Data]) throws -> Void) throws -> ZMQSocket {
        let socket = try makeSocket(.dealer) {
            try $0.setLinger(milliseconds: 0)
            try $0.setMaxMessageSize(bytes: -1)
            try $0.connect(endpoint, security: binding.security)
        }
        onEachMessage(of: socket, endpoint: binding.endpointName(of: endpoint), batch: Self.defaultBatch, handle)
        return socket
    }

    /// A PUSH connected to `endpoint`, for messages that have no reply (samples to
    /// metrics-ingest). `ZMQ_IMMEDIATE` queues nothing for a peer that is not connected, so a
    /// send without `dontWait` room fails at once instead of piling up for a peer that may never come.
    public func pusher(connectedTo endpoint: String) throws -> ZMQSocket {
        try makeSocket(.push) {
            try $0.setLinger(milliseconds: 500)
            try $0.setImmediate(true)
            try $0.connect(endpoint, security: binding.security)
        }
    }

    /// Hands `take` what other threads post to `mailbox`, on this thread, as soon as it is posted
    /// and once more when the bus stops. The bus closes the mailbox when it closes.
    public func receive<Message: Sendable>(from mailbox: BusMailbox<Message>, _ take: @escaping ([Message]) throws -> Void) {
        closeMailboxes.append(mailbox.close)
        readers.append(
            Reader(target: .fileDescriptor(mailbox.readEnd), isActive: { true }, pacing: nil) {
                let messages = mailbox.take()
                try take(messages)
                return messages.count
            })
        stopSteps.append { _ in try take(mailbox.take()) }
    }

    // MARK: - Time

    /// Fires `fire` on the first turn at or after `due()`; nil means not scheduled. `due` is asked
    /// again every turn, so the owner reschedules by changing what it returns — and must, when it
    /// fires, or the timer stays due.
    public func timer(dueAt due: @escaping () -> Date?, _ fire: @escaping (Date) throws -> Void) {
        timers.append(Timer(due: due, fire: fire))
    }

    /// Fires `fire` on the first turn once the monotonic instant `due()` has passed; nil means not
    /// scheduled. For a deadline that a step of the wall clock must not move (a grace, a request's
    /// patience): the bus keeps time on its wall clock, so the timer falls due at "now plus what is
    /// left", asked again every turn.
    public func timer(dueBy due: @escaping () -> ContinuousClock.Instant?, _ fire: @escaping (Date) throws -> Void) {
        timer(dueAt: { [clock] in due().map { clock.now.addingTimeInterval(max(0, ContinuousClock.now.duration(to: $0).asSeconds)) } }, fire)
    }

    /// Fires `fire` every `interval`, the first time one interval from now.
    public func every(_ interval: TimeInterval, _ fire: @escaping (Date) throws -> Void) {
        let next = NextDate(clock.now.addingTimeInterval(interval))
        timer(dueAt: { next.date }) { now in
            next.date = now.addingTimeInterval(interval)
            try fire(now)
        }
    }

    /// Runs `step` on every turn after the handlers, before the timers: for work that needs
    /// everything the turn's messages brought (a change seen on two replicas at once is handled
    /// once).
    public func afterMessages(_ step: @escaping (Date) throws -> Void) {
        afterMessageSteps.append(step)
    }

    /// Runs `step` once when the bus stops, after the last turn: what is still waiting goes out.
    public func onStop(_ step: @escaping (Date) throws -> Void) {
        stopSteps.append(step)
    }

    /// Says in one line how this bus is on the network — CURVE or plaintext, and the addresses its
    /// sockets really bound (an interface name or `0.0.0.0` as libzmq resolved it, not the
    /// endpoint variable's host) — as a warning when it listens in plaintext beyond loopback.
    /// A service logs it once its sockets are declared, so an operator reads from the log what
    /// anyone on the network can reach.
    public func logNetworkExposure(to logger: Logger) {
        let mode = binding.security == nil ? "plaintext" : "CURVE"
        let metadata: Logger.Metadata = ["widgetbus.security": "\(mode)", "widgetbus.binds": "\(boundAddresses.joined(separator: " "))"]
        if binding.security == nil, !boundAddresses.isEmpty, !BusBinding.isLoopback(binding.host) {
            logger.warning(
                "bus in plaintext beyond loopback: anyone who reaches these ports can read and write every user's data",
                metadata: metadata)
        } else {
            logger.info("bus in \(mode)", metadata: metadata)
        }
    }

    // MARK: - Running

    /// Runs turns until `stop` is requested, then the stop steps.
    public func run(until stop: StopSignal) throws {
        stopSignal = stop
        while !stop.isRequested {
            try turn(waitingAtMost: Self.stopCheckInterval)
        }
        let now = clock.now
        for step in stopSteps { try step(now) }
    }

    /// One turn: waits at most `limit` seconds (less when a timer falls due or a socket's rest
    /// ends sooner) for a readable socket, then runs the handlers, the steps after them and the
    /// due timers.
    public func turn(waitingAtMost limit: TimeInterval) throws {
        let before = clock.now
        var active: [Reader] = []
        var restEnds: Date?
        for reader in readers where reader.isActive() {
            if !reader.waiting(), let end = reader.pacing?.restEnd(at: before) {
                restEnds = min(restEnds ?? end, end)
            } else {
                active.append(reader)
            }
        }
        let nextDue = timers.lazy.compactMap { $0.due() }.min()
        // Messages already taken and waiting to be handled: no wait at all.
        let wait = active.contains { $0.waiting() } ? 0 : max(0, min(limit, nextDue.map { $0.timeIntervalSince(before) } ?? limit))
        var timeout = Int((wait * 1000).rounded(.up))
        if let rest = restEnds?.timeIntervalSince(before), rest < wait {
            // The poll counts whole milliseconds: a rest is waited out to its end, not rounded up
            // to the next millisecond; its last fraction of one is slept, the other sockets
            // waiting that fraction too.
            timeout = Int((rest * 1000).rounded(.down))
            if timeout == 0 { Thread.sleep(forTimeInterval: rest) }
        }
        let ready = try ZMQPoller.poll(targets: active.map { ($0.target, .readable) }, timeoutMilliseconds: timeout)
        for (reader, events) in zip(active, ready) where events.contains(.readable) || reader.waiting() {
            let taken = try reader.take()
            if taken > 0 { reader.pacing?.took(taken, at: clock.now) }
        }
        let afterMessages = clock.now
        for step in afterMessageSteps { try step(afterMessages) }
        // The time is read after the due dates, so a date computed as "now plus what is left"
        // (a schedule kept on another clock) is due once nothing is left.
        let dues = timers.map { $0.due() }
        let now = clock.now
        for (timer, due) in zip(timers, dues) {
            if let due, due <= now { try timer.fire(now) }
        }
    }

    /// Closes every socket and mailbox and ends the context. Other threads that opened sockets on
    /// ``context`` must have closed them first.
    public func close() {
        if let hangUpListener { HangUpSignal.shared.remove(hangUpListener) }
        for close in closeMailboxes { close() }
        for socket in sockets { socket.close() }
        // The ZAP handler last: a CURVE server with no handler lets any key in.
        zapSocket?.close()
        context.terminate()
    }

    // MARK: - Plumbing

    /// Binds `socket` at `endpoint` on ``binding``'s host, as a CURVE server of that endpoint's
    /// allow-list when ``binding`` has keys.
    private func bind(_ socket: ZMQSocket, at endpoint: String) throws {
        if let settings = binding.security {
            let security = try security ?? serveZAP(BusSecurity(settings))
            let domain = security.domain(of: endpoint)
            try socket.makeCurveServer(keys: security.keys, domain: domain)
            try watchHandshakes(of: socket, domain: domain)
        }
        try socket.bind(binding.address(for: endpoint))
        boundAddresses.append(try socket.lastEndpoint)
    }

    /// The ZAP handler every CURVE server socket of this context asks, on this thread, bound
    /// before the first of them (a CURVE server with no handler would let any key in); and SIGHUP
    /// reloads the allow-lists it answers from. A bus that only connects has neither.
    ///
    /// - Returns: `security`, now the bus's.
    private func serveZAP(_ security: BusSecurity) throws -> BusSecurity {
        self.security = security
        let logger = Logger(label: "widgetbus.security")
        let handler = ZAPHandler(security: security, logger: logger)
        zapHandler = handler
        // A ROUTER where RFC 27 shows a REP: it takes every waiting request in one turn. Kept
        // apart from the other sockets, to be closed after all of them.
        let socket = try ZMQSocket(context: context, type: .router)
        zapSocket = socket
        try socket.setLinger(milliseconds: 0)
        try socket.bind(ZAPHandler.endpoint)
        onEachMessage(of: socket, endpoint: "zap", batch: Self.defaultBatch) { frames in
            let request = RoutedMessage(frames: frames)
            if let reply = handler.reply(to: request.payloadFrames) {
                try socket.send(request.route + reply, dontWait: true)
            }
        }
        let reloads = try BusMailbox<Void>()
        receive(from: reloads) { [unowned self] posted in
            guard !posted.isEmpty else { return }
            let before = security.allowed
            do {
                try security.reload()
                logger.info("allow-lists reloaded", metadata: ["widgetbus.keys_dir": "\(security.directory.path)"])
            } catch {
                logger.error("allow-lists not reloaded; the previous ones stay", metadata: ["widgetbus.error": "\(error)"])
                return
            }
            try dropConnections(revokedSince: before, security: security, logger: logger)
        }
        hangUpListener = HangUpSignal.shared.add { reloads.post(()) }
        return security
    }

    /// How long the listener of a socket whose connections are dropped may take to close before
    /// the address is bound again: a revoked client must be cut off within a second of the reload.
    private static let listenerCloseLimit: Duration = .seconds(1)

    /// Drops every connection of each CURVE server socket whose endpoint's allow-list lost a key
    /// since `before`: ZAP checks a client only at its handshake, so a revoked client would keep
    /// its open connection — events, replies — until a restart. Unbinding the socket's address
    /// ends every session libzmq accepted there, and binding it again once the old listener has
    /// closed lets the clients reconnect: the allowed ones by themselves, through ZAP again; the
    /// revoked one is refused. (A session ends once the socket has handled libzmq's commands: at
    /// once for a socket the loop polls, at its next send for a publisher, which that send then
    /// no longer reaches.) A follower of a publisher cut this way may miss events while it
    /// reconnects and re-syncs from the snapshot, as after any gap. A listener that does not
    /// close within ``listenerCloseLimit`` ends the bus with that error rather than leave the
    /// endpoint deaf.
    private func dropConnections(revokedSince before: [String: Set<String>], security: BusSecurity, logger: Logger) throws {
        let revoked = Set(before.compactMap { domain, keys in keys.isSubset(of: security.allowed[domain] ?? []) ? nil : domain })
        for server in curveServers where revoked.contains(server.domain) {
            let address = try server.socket.lastEndpoint
            try server.socket.unbind(address)
            try awaitListenerClosed(server, address: address)
            try server.socket.bind(address)
            logger.notice(
                "connections dropped: a key left this endpoint's allow-list; allowed clients reconnect",
                metadata: ["widgetbus.endpoint": "\(server.domain)", "widgetbus.address": "\(address)"])
        }
    }

    /// Waits, at most ``listenerCloseLimit``, for `server`'s monitor to report that the listener
    /// just unbound from `address` closed — until then its port (or `ipc://` file) is still
    /// taken — handing the handshake failures it reports meanwhile to the ZAP handler.
    private func awaitListenerClosed(_ server: CurveServer, address: String) throws {
        let deadline = ContinuousClock.now + Self.listenerCloseLimit
        while ContinuousClock.now < deadline {
            let left = Int(((deadline - ContinuousClock.now) / .milliseconds(1)).rounded(.up))
            guard try ZMQPoller.isReadable(server.monitor, waitingMilliseconds: left) else { continue }
            while let frames = try server.monitor.receiveMessage(dontWait: true) {
                if report(frames, of: server) == .closed { return }
            }
        }
        throw ZMQError(errno: ETIMEDOUT, operation: "zmq_unbind(\(address)): the listener still open after \(Self.listenerCloseLimit)")
    }

    /// Monitors `socket`, a CURVE server of `domain` (``CurveServer``), on a PAIR read on this
    /// thread like any other socket.
    private func watchHandshakes(of socket: ZMQSocket, domain: String) throws {
        let address = "inproc://widgetbus.handshakes.\(curveServers.count)"
        try socket.monitor(ZAPHandler.monitoredEvents.union(.closed), at: address)
        let monitor = try makeSocket(.pair) {
            try $0.setLinger(milliseconds: 0)
            try $0.connect(address)
        }
        let server = CurveServer(socket: socket, domain: domain, monitor: monitor)
        curveServers.append(server)
        onEachMessage(of: monitor, endpoint: "zap", batch: Self.defaultBatch) { [unowned self] frames in
            report(frames, of: server)
        }
    }

    /// Hands the ZAP handler a handshake failure `server`'s monitor reported; returns the event.
    @discardableResult
    private func report(_ frames: [Data], of server: CurveServer) -> ZMQSocketEvents? {
        guard let event = ZMQSocketEvent(frames: frames) else { return nil }
        if event.event != .closed { zapHandler?.handshakeFailed(event, domain: server.domain) }
        return event.event
    }

    private func makeSocket(_ type: ZMQSocketType, _ configure: (ZMQSocket) throws -> Void) throws -> ZMQSocket {
        let socket = try ZMQSocket(context: context, type: type)
        sockets.append(socket)
        try configure(socket)
        return socket
    }

    /// Takes up to `batch` messages from `socket` each turn it is readable and hands them to
    /// `handle` together, reporting them as `endpoint`'s (``SocketMetrics``): for a handler that
    /// needs the batch (a group commit).
    private func onMessages(
        of socket: ZMQSocket, endpoint: String, batch: Int, while isActive: @escaping () -> Bool = { true }, pacing: TimeInterval = 0,
        answersRequests: Bool = false, _ handle: @escaping ([[Data]]) throws -> Void
    ) {
        onMessages(
            of: socket, endpoint: endpoint, pacing: pacing, batch: batch, answersRequests: answersRequests, while: isActive,
            take: { [unowned self] in
                var messages: [[Data]] = []
                while messages.count < batch, !isStopping, let frames = try socket.receiveMessage(dontWait: true) {
                    messages.append(frames)
                }
                return messages
            }, handle)
    }

    /// Hands `handle` what `take` takes each turn `socket` is readable or `waiting` holds (messages
    /// taken off the socket on an earlier turn wait to be handled), reporting them as
    /// `endpoint`'s (``SocketMetrics``). A socket with messages waiting does not rest.
    private func onMessages<Message>(
        of socket: ZMQSocket, endpoint: String, pacing: TimeInterval, batch: Int, answersRequests: Bool,
        while isActive: @escaping () -> Bool = { true }, waiting: @escaping () -> Bool = { false },
        take: @escaping () throws -> [Message], _ handle: @escaping ([Message]) throws -> Void
    ) {
        onTurns(
            of: socket, endpoint: endpoint, pacing: pacing, batch: batch, answersRequests: answersRequests, while: isActive, waiting: waiting
        ) { metrics in
            let messages = try take()
            guard !messages.isEmpty else { return 0 }
            let start = DispatchTime.now()
            try handle(messages)
            metrics.took(messages.count, since: start)
            return messages.count
        }
    }

    /// Hands `handle` each message as it is taken off `socket`, up to `batch` a turn, reporting
    /// them as `endpoint`'s (``SocketMetrics``). Each message's frames are let go once handled: a
    /// turn that drains a backlog into a map of the handler's own (a follower keeping the latest
    /// per key) holds one message at a time, never the whole batch.
    private func onEachMessage(
        of socket: ZMQSocket, endpoint: String, batch: Int, pacing: TimeInterval = 0, _ handle: @escaping ([Data]) throws -> Void
    ) {
        onTurns(of: socket, endpoint: endpoint, pacing: pacing, batch: batch, answersRequests: false) { [unowned self] metrics in
            let start = DispatchTime.now()
            var count = 0
            while count < batch, !isStopping, let frames = try socket.receiveMessage(dontWait: true) {
                try handle(frames)
                count += 1
            }
            if count > 0 { metrics.took(count, since: start) }
            return count
        }
    }

    /// Runs `turn` each turn `socket` is readable or `waiting` holds, paced by `pacing`; `turn`
    /// returns how many messages it took.
    private func onTurns(
        of socket: ZMQSocket, endpoint: String, pacing: TimeInterval, batch: Int, answersRequests: Bool,
        while isActive: @escaping () -> Bool = { true }, waiting: @escaping () -> Bool = { false },
        _ turn: @escaping (SocketMetrics) throws -> Int
    ) {
        let pacing = pacing > 0 ? SocketPacing(pacing, batch: batch, answersRequests: answersRequests) : nil
        let metrics = SocketMetrics(endpoint: endpoint)
        readers.append(Reader(target: .socket(socket), isActive: isActive, pacing: pacing, waiting: waiting) { try turn(metrics) })
    }
}

/// A CURVE server socket of a ``Bus``, with the ZAP domain of its endpoint and the PAIR its
/// monitor reports on. libzmq tells the ZAP handler only of the clients whose CURVE handshake
/// succeeded; the monitor reports the handshakes that failed before it (a client without CURVE,
/// one expecting another server key), so that those refusals are counted and logged too, and
/// when the socket's listener has closed after an unbind.
private struct CurveServer {
    let socket: ZMQSocket
    let domain: String
    let monitor: ZMQSocket
}

/// Sends replies that a ``Bus/replies(at:batch:pacing:_:)`` handler left for later.
public struct Replier {
    let socket: ZMQSocket
    let replies: Counter

    /// Sends `payload` back along `route`, the routing frames of the request it answers.
    public func send(_ payload: Data, to route: [Data]) throws {
        try socket.send(route + [payload], dontWait: true)
        replies.increment()
    }
}

/// The next date of a repeating timer, changed as it fires.
private final class NextDate {
    var date: Date

    init(_ date: Date) {
        self.date = date
    }
}
