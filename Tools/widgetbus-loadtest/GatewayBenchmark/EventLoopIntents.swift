import CommandLineText
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
/// held back. A request whose connection fails is answered with an error, timed to the failure,
/// as async-http-client's path counts it.
enum EventLoopIntents {
    /// One run of `schedule` on `connections` connections to the gateway on `port`, after one
    /// request on each (answered `200` within 10 s, or the run fails).
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
        let bodies = PacedIntents.levels.map { level in
            ByteBuffer(string: #"{"type":"RecordTensionIntent","body":{"level":\#(level)}}"#)
        }
        let pacer = try loop.submit {
            Pacer.make(loop: loop, schedule: schedule, host: "localhost:\(port)", authorizations: authorizations, bodies: bodies)
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
        try loop.flatSubmit { pacer.value.warmUp(within: .seconds(10)) }.wait()
        return try loop.flatSubmit { pacer.value.start(round: round, path: path) }.wait()
    }

    /// The schedule and its tally, confined to the event loop.
    final class Pacer {
        private let loop: any EventLoop
        private let schedule: PacedIntents.Schedule
        private let host: String
        private let authorizations: [String]
        private let bodies: [ByteBuffer]
        /// Open connections with no request on them.
        private var idle: [IntentConnection] = []
        private var open = 0
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
        private var answers = 0
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

        func opened(_ connection: IntentConnection) {
            open += 1
            idle.append(connection)
        }

        /// One request on every connection, answered `200` within `limit`, before the clock
        /// starts: each connection's TLS handshake is done by then.
        func warmUp(within limit: TimeAmount) -> EventLoopFuture<Void> {
            let promise = loop.makePromise(of: Void.self)
            guard !idle.isEmpty else {
                promise.fail(ValidationFailure("no connection to the gateway is open"))
                return promise.futureResult
            }
            warmUpAnswers = promise
            let all = idle
            idle.removeAll()
            for connection in all { send(index: 1, on: connection, due: .now, waited: false) }
            loop.assumeIsolated().scheduleTask(in: limit) {
                self.failWarmUp("the first request on each connection was not all answered within \(limit)")
            }
            return promise.futureResult
        }

        private func failWarmUp(_ reason: String) {
            warmUpAnswers?.fail(ValidationFailure("\(path.isEmpty ? "nio-h1" : path) warm-up: \(reason)"))
            warmUpAnswers = nil
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

        /// The request `index` on `connection` ended: answered with `status`, or failed with
        /// `failure` (the connection is then closed and gone from the pool).
        func ended(
            index: Int, timedFrom from: ContinuousClock.Instant, status: HTTPResponseStatus?, failure: String? = nil,
            on connection: IntentConnection
        ) {
            let elapsed = ContinuousClock.now - from
            inFlight -= 1
            let error = failure ?? (status == .ok ? nil : status.map { "HTTP \($0.code)" } ?? "no status")
            if let error, warmUpAnswers != nil { failWarmUp(error) }
            if finished != nil, index >= schedule.warmUp {
                answers += 1
                if let error {
                    errors += 1
                    if firstError == nil { firstError = error }
                }
                _ = latency.record(elapsed.asMicroseconds)
            }
            if failure == nil { free(connection) }
            if let promise = warmUpAnswers, idle.count == open {
                warmUpAnswers = nil
                promise.succeed()
            }
            finishIfDone()
        }

        /// A connection free for the next request: the oldest waiting one, or the pool.
        private func free(_ connection: IntentConnection) {
            if waitingHead < waiting.count {
                let request = waiting[waitingHead]
                waitingHead += 1
                send(index: request.index, on: connection, due: request.due, waited: true)
            } else {
                idle.append(connection)
            }
        }

        /// A connection closed: it leaves the pool.
        func closed(_ connection: IntentConnection) {
            open -= 1
            idle.removeAll { $0 === connection }
        }

        private func finishIfDone() {
            if next == schedule.total, inFlight == 0, waitingHead == waiting.count { finish() }
        }

        /// Ends the run: once every request has ended, or 10 s after the last was due.
        private func finish() {
            guard let promise = finished else { return }
            finished = nil
            idle.removeAll()
            let unanswered = schedule.count - answers
            if errors > 0 || unanswered > 0 {
                Console.error("\(path), round \(round): \(errors) errors, \(unanswered) unanswered; the first error: \(firstError ?? "none")")
            }
            promise.succeed(
                PacedIntentRun(
                    path: path, round: round, rate: schedule.rate, sent: schedule.count, answered: answers, errors: errors,
                    firstSent: firstRecorded ?? start, lastSent: lastSent,
                    latency: latency, lag: lag))
        }
    }

    /// One keep-alive connection: writes a request and reports how it ended.
    final class IntentConnection: ChannelInboundHandler {
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
            pacer.value.opened(self)
        }

        func handlerRemoved(context: ChannelHandlerContext) {
            self.context = nil
        }

        func send(head: HTTPRequestHead, body: ByteBuffer, index: Int, timedFrom from: ContinuousClock.Instant) {
            current = (index, from)
            status = nil
            guard let context else { return end(failure: "the connection is closed") }
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
                pacer.value.ended(index: request.index, timedFrom: request.timedFrom, status: status, on: self)
            }
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            end(failure: "\(error)")
            context.close(promise: nil)
        }

        /// The connection closed: it leaves the pool, and a request on it has failed.
        func channelInactive(context: ChannelHandlerContext) {
            pacer.value.closed(self)
            end(failure: "the gateway closed the connection")
            context.fireChannelInactive()
        }

        private func end(failure: String) {
            guard let request = current else { return }
            current = nil
            pacer.value.ended(index: request.index, timedFrom: request.timedFrom, status: nil, failure: failure, on: self)
        }
    }
}
