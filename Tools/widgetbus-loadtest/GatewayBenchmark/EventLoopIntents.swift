import Foundation
import Histogram
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import ServiceSupport

/// `POST /v1/intents` over HTTPS and HTTP/1.1 from the cheapest client this benchmark can be:
/// keep-alive connections on one NIO event loop, each request written by a channel handler when
/// it falls due and timed from that write to the end of its answer. No task, connection pool or
/// request state machine is made per request, so the client costs the two shared cores about
/// what the direct path's DEALER costs. The two paths then differ by the gateway, not also by
/// their clients.
///
/// The schedule is open loop while a connection is free. A request that falls due while every
/// connection has one in flight waits for the first to finish: that wait shows as send lag, and
/// its round trip is timed from when it fell due, as an open loop would have sent it, so a
/// stall of the gateway longer than the connections can cover is not hidden by the requests it
/// held back.
enum EventLoopIntents {
    static func run(
        port: Int, caPEM: String, connections: Int, authorizations: [String], schedule: PacedIntents.Schedule, round: Int, path: String
    ) throws -> PacedIntentRun {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { try? group.syncShutdownGracefully() }
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates([try NIOSSLCertificate(bytes: Array(caPEM.utf8), format: .pem)])
        tls.applicationProtocols = ["http/1.1"]
        let context = try NIOSSLContext(configuration: tls)
        let loop = group.next()
        let requests = PacedIntents.levels.map { level in
            ByteBuffer(string: #"{"type":"RecordTensionIntent","body":{"level":\#(level)}}"#)
        }
        let pacer = try loop.submit {
            Pacer.make(loop: loop, schedule: schedule, host: "localhost:\(port)", authorizations: authorizations, bodies: requests)
        }.wait()
        let channels = try (0..<connections).map { _ in
            try ClientBootstrap(group: loop)
                .channelOption(.socketOption(.tcp_nodelay), value: 1)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let handlers = channel.pipeline.syncOperations
                        try handlers.addHandler(NIOSSLClientHandler(context: context, serverHostname: "localhost"))
                        try handlers.addHTTPClientHandlers()
                        try handlers.addHandler(IntentConnection(pacer: pacer))
                    }
                }
                .connect(host: "127.0.0.1", port: port).wait()
        }
        defer { for channel in channels { channel.close(promise: nil) } }
        try loop.flatSubmit { pacer.value.warmUp() }.wait()
        return try loop.flatSubmit { pacer.value.start(round: round, path: path) }.wait()
    }

    /// The schedule and its tally, confined to the event loop.
    final class Pacer {
        private let loop: any EventLoop
        private let schedule: PacedIntents.Schedule
        private let host: String
        private let authorizations: [String]
        private let bodies: [ByteBuffer]
        private var idle: [IntentConnection] = []
        private var connections = 0
        /// Requests due while no connection was free, oldest first: their index and due time.
        private var waiting: [(index: Int, due: ContinuousClock.Instant)] = []
        private var waitingHead = 0
        private var next = 0
        private var inFlight = 0
        private var start = ContinuousClock.now
        private var firstRecorded: ContinuousClock.Instant?
        private var lastSent = ContinuousClock.now
        private var latency = Histogram<UInt64>.latencyMicroseconds()
        private var lag = Histogram<UInt64>.latencyMicroseconds()
        private var answered = 0
        private var errors = 0
        private var firstError: String?
        private var warmUpAnswers: EventLoopPromise<Void>?
        private var finished: EventLoopPromise<PacedIntentRun>?
        private var round = 0
        private var path = ""

        static func make(
            loop: any EventLoop, schedule: PacedIntents.Schedule, host: String, authorizations: [String], bodies: [ByteBuffer]
        ) -> NIOLoopBound<Pacer> {
            NIOLoopBound(Pacer(loop: loop, schedule: schedule, host: host, authorizations: authorizations, bodies: bodies), eventLoop: loop)
        }

        private init(loop: any EventLoop, schedule: PacedIntents.Schedule, host: String, authorizations: [String], bodies: [ByteBuffer]) {
            self.loop = loop
            self.schedule = schedule
            self.host = host
            self.authorizations = authorizations
            self.bodies = bodies
        }

        func joined(_ connection: IntentConnection) {
            connections += 1
            idle.append(connection)
        }

        /// One request on every connection, answered, before the clock starts: each connection's
        /// TLS handshake is done by then.
        func warmUp() -> EventLoopFuture<Void> {
            let promise = loop.makePromise(of: Void.self)
            warmUpAnswers = promise
            let all = idle
            idle.removeAll()
            for connection in all { send(index: 1, on: connection, due: .now, waited: false) }
            return promise.futureResult
        }

        func start(round: Int, path: String) -> EventLoopFuture<PacedIntentRun> {
            self.round = round
            self.path = path
            let promise = loop.makePromise(of: PacedIntentRun.self)
            finished = promise
            start = .now + .milliseconds(20)
            lastSent = start
            sendDue()
            return promise.futureResult
        }

        private func due(_ index: Int) -> ContinuousClock.Instant { start + schedule.interval * index }

        private func sendDue() {
            let now = ContinuousClock.now
            while next < schedule.total, due(next) <= now {
                if let connection = idle.popLast() {
                    send(index: next, on: connection, due: due(next), waited: false)
                } else {
                    waiting.append((next, due(next)))
                }
                next += 1
            }
            if next < schedule.total {
                let nanoseconds = (due(next) - .now) / .nanoseconds(1)
                loop.assumeIsolated().scheduleTask(in: .nanoseconds(Int64(max(0, nanoseconds)))) { self.sendDue() }
            } else {
                loop.assumeIsolated().scheduleTask(in: .seconds(10)) { self.finish() }
                finishIfDone()
            }
        }

        /// Writes request `index` on `connection`, timed from its write, or from when it fell due
        /// if it `waited` for a free connection.
        private func send(index: Int, on connection: IntentConnection, due: ContinuousClock.Instant, waited: Bool) {
            let sent = ContinuousClock.now
            inFlight += 1
            if finished != nil, index >= schedule.warmUp {
                _ = lag.record((sent - due).asMicroseconds)
                if firstRecorded == nil { firstRecorded = sent }
                lastSent = sent
            }
            var head = HTTPRequestHead(version: .http1_1, method: .POST, uri: "/v1/intents")
            let body = bodies[index % bodies.count]
            head.headers.add(name: "Host", value: host)
            head.headers.add(name: "Authorization", value: authorizations[index % authorizations.count])
            head.headers.add(name: "Content-Type", value: "application/json")
            head.headers.add(name: "Content-Length", value: String(body.readableBytes))
            connection.send(head: head, body: body, index: index, timedFrom: waited ? due : sent)
        }

        func answered(index: Int, timedFrom from: ContinuousClock.Instant, status: HTTPResponseStatus?, on connection: IntentConnection) {
            let elapsed = ContinuousClock.now - from
            inFlight -= 1
            if finished != nil, index >= schedule.warmUp {
                answered += 1
                if status != .ok {
                    errors += 1
                    if firstError == nil { firstError = status.map { "HTTP \($0.code)" } ?? "no status" }
                }
                _ = latency.record(elapsed.asMicroseconds)
            }
            if waitingHead < waiting.count {
                let request = waiting[waitingHead]
                waitingHead += 1
                send(index: request.index, on: connection, due: request.due, waited: true)
            } else {
                idle.append(connection)
            }
            if let promise = warmUpAnswers, idle.count == connections {
                warmUpAnswers = nil
                promise.succeed()
            }
            finishIfDone()
        }

        /// A connection failed: the warm-up fails with it; in the measured run its request is
        /// left unanswered.
        func failed(_ error: any Error) {
            if firstError == nil { firstError = "\(error)" }
            warmUpAnswers?.fail(error)
            warmUpAnswers = nil
        }

        private func finishIfDone() {
            if next == schedule.total, inFlight == 0, waitingHead == waiting.count { finish() }
        }

        /// Ends the run: when every request is answered, or 10 s after the last send.
        private func finish() {
            guard let promise = finished else { return }
            finished = nil
            if let firstError, errors > 0 { Console.error("\(path), round \(round): \(errors) errors, the first: \(firstError)") }
            promise.succeed(
                PacedIntentRun(
                    path: path, round: round, rate: schedule.rate, sent: schedule.count, answered: answered, errors: errors,
                    sendingSeconds: (lastSent - (firstRecorded ?? start)).asSeconds * Double(schedule.count) / Double(max(1, schedule.count - 1)),
                    latency: latency, lag: lag))
        }
    }

    /// One keep-alive connection: writes a request and reports its answer's status at its end.
    final class IntentConnection: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = HTTPClientResponsePart
        typealias OutboundOut = HTTPClientRequestPart

        private let pacer: NIOLoopBound<Pacer>
        private var context: ChannelHandlerContext?
        private var current: (index: Int, timedFrom: ContinuousClock.Instant)?
        private var status: HTTPResponseStatus?

        init(pacer: NIOLoopBound<Pacer>) {
            self.pacer = pacer
        }

        func handlerAdded(context: ChannelHandlerContext) {
            self.context = context
            pacer.value.joined(self)
        }

        func send(head: HTTPRequestHead, body: ByteBuffer, index: Int, timedFrom from: ContinuousClock.Instant) {
            guard let context else { return }
            current = (index, from)
            status = nil
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head): status = head.status
            case .body: break
            case .end:
                guard let request = current else { return }
                current = nil
                pacer.value.answered(index: request.index, timedFrom: request.timedFrom, status: status, on: self)
            }
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            pacer.value.failed(error)
            context.close(promise: nil)
        }

        /// A connection the gateway closed with a request on it: that request stays unanswered.
        func channelInactive(context: ChannelHandlerContext) {
            if current != nil { pacer.value.failed(ChannelError.ioOnClosedChannel) }
            context.fireChannelInactive()
        }
    }
}
