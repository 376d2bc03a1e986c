import AsyncHTTPClient
import BusRuntime
import CommandLineText
import Foundation
import Histogram
import NIOCore
import NIOHTTP1
import ServiceSupport
import WidgetBusProtocol
import ZeroMQ

/// One open-loop run of intents at a fixed offered rate: requests leave on schedule whatever the
/// answers, and each round trip is timed from when it left to its answer (on `gateway-nio-h1`, a
/// request that waited for a free connection from when it fell due).
struct PacedIntentRun: Codable, Sendable {
    /// `direct` (a DEALER to intent-handler), or `gateway-` and the client's name (HTTPS POST
    /// /v1/intents from that client: `nio-h1`, `ahc-h1`, `ahc-h2`).
    var path: String
    var round: Int
    var offeredPerSecond: Double
    var sent: Int
    var answered: Int
    /// Answers that were not a state: an HTTP status other than 200, a bus error reply, or (on the
    /// gateway's paths) a request that failed or timed out in its client.
    var errors: Int
    /// Requests with no answer within 10 s of the last send (the last due time on
    /// `gateway-nio-h1`); the direct path's missing replies.
    var unanswered: Int
    /// Sent, over the time from the first send to the last: the rate the schedule held.
    var achievedPerSecond: Double
    var p50Milliseconds: Double
    var p90Milliseconds: Double
    var p99Milliseconds: Double
    var p999Milliseconds: Double
    var maxMilliseconds: Double
    /// How late sends left against their schedule, p99: large values mean the generator held the
    /// rate back, or (on `gateway-nio-h1`) that requests waited for a connection the gateway held.
    var sendLagP99Milliseconds: Double
    /// Milliseconds of CPU per intent sent (warm-up included) of each process measured: the
    /// gateway, the load generator, and the services named with `--pid`.
    var cpuMillisecondsPerIntent: [String: Double] = [:]

    /// `firstSent` and `lastSent`: the first and last recorded send; the rate held is the sends
    /// over that span, stretched by one interval (n sends span n − 1 intervals).
    init(
        path: String, round: Int, rate: Double, sent: Int, answered: Int, errors: Int, firstSent: ContinuousClock.Instant,
        lastSent: ContinuousClock.Instant, latency: Histogram<UInt64>, lag: Histogram<UInt64>
    ) {
        let sendingSeconds = (lastSent - firstSent).asSeconds * Double(sent) / Double(max(1, sent - 1))
        self.path = path
        self.round = round
        offeredPerSecond = rate
        self.sent = sent
        self.answered = answered
        self.errors = errors
        unanswered = sent - answered
        achievedPerSecond = Double(sent) / max(sendingSeconds, 1e-9)
        p50Milliseconds = Double(latency.valueAtPercentile(50)) / 1_000
        p90Milliseconds = Double(latency.valueAtPercentile(90)) / 1_000
        p99Milliseconds = Double(latency.valueAtPercentile(99)) / 1_000
        p999Milliseconds = Double(latency.valueAtPercentile(99.9)) / 1_000
        maxMilliseconds = Double(latency.max) / 1_000
        sendLagP99Milliseconds = Double(lag.valueAtPercentile(99)) / 1_000
    }
}

/// The two paths of the same intents: straight to intent-handler on the bus, and through the
/// gateway over HTTPS. Both send `RecordTensionIntent` for the same users, the levels in the
/// same order, a trace context in every envelope (the gateway starts one for each request).
enum PacedIntents {
    static let levels = [0, 3, 5, 7, 10]

    /// The schedule: `warmUp` requests (not recorded), then `count`, `1/rate` s apart.
    struct Schedule: Sendable {
        var rate: Double
        var warmUp: Int
        var count: Int
        var total: Int { warmUp + count }
        var interval: Duration { .nanoseconds(Int64(1e9 / rate)) }
    }

    /// A DEALER to intent-handler sending on schedule from this thread, polling for replies
    /// between sends: each reply is stamped when the poll returns with it.
    static func direct(endpoint: String, users: [String], schedule: Schedule, round: Int) throws -> PacedIntentRun {
        let codec = WireCodec()
        let context = try ZMQContextHolder.shared
        let socket = try ZMQSocket(context: context, type: .dealer)
        defer { socket.close() }
        try socket.setLinger(milliseconds: 0)
        try socket.setSendHighWaterMark(0)
        try socket.setReceiveHighWaterMark(0)
        try socket.connect(endpoint, security: nil)
        // One exchange first, so the connection is up before the clock starts.
        try exchangeOne(socket: socket, codec: codec, user: users[0])

        var payloads: [Data] = []
        var ids: [String] = []
        payloads.reserveCapacity(schedule.total)
        for index in 0..<schedule.total {
            let id = UUID().uuidString.lowercased()
            ids.append(id)
            payloads.append(try payload(id: id, user: users[index % users.count], index: index, codec: codec))
        }
        var sentAt: [String: (index: Int, at: ContinuousClock.Instant)] = [:]
        sentAt.reserveCapacity(schedule.total)
        var latency = Histogram<UInt64>.latencyMicroseconds()
        var lag = Histogram<UInt64>.latencyMicroseconds()
        var answered = 0, errors = 0, next = 0
        let start = ContinuousClock.now + .milliseconds(20)
        var firstRecorded: ContinuousClock.Instant?
        var lastSent = start
        var quietSince = ContinuousClock.now
        func due(_ index: Int) -> ContinuousClock.Instant { start + schedule.interval * index }
        while true {
            var now = ContinuousClock.now
            while next < schedule.total, due(next) <= now {
                guard try socket.send([Data(), payloads[next]]) else { break }
                now = ContinuousClock.now
                sentAt[ids[next]] = (next, now)
                if next >= schedule.warmUp {
                    _ = lag.record((now - due(next)).asMicroseconds)
                    if firstRecorded == nil { firstRecorded = now }
                    lastSent = now
                }
                next += 1
            }
            let wait: Int
            if next < schedule.total {
                wait = max(0, Int(((due(next) - now).asMilliseconds).rounded(.up)))
            } else if sentAt.isEmpty || now - quietSince > .seconds(10) {
                break
            } else {
                wait = 100
            }
            if try ZMQPoller.isReadable(socket, waitingMilliseconds: wait) {
                let arrived = ContinuousClock.now
                while let frames = try socket.receiveMessage(dontWait: true) {
                    guard let reply = frames.last, let id = JSONFieldScanner(reply).string("inReplyTo"),
                        let sent = sentAt.removeValue(forKey: id)
                    else { continue }
                    quietSince = arrived
                    guard sent.index >= schedule.warmUp else { continue }
                    answered += 1
                    if JSONFieldScanner(reply).string("type") == MessageType.error.rawValue { errors += 1 }
                    _ = latency.record((arrived - sent.at).asMicroseconds)
                }
            }
        }
        return PacedIntentRun(
            path: "direct", round: round, rate: schedule.rate, sent: schedule.count, answered: answered, errors: errors,
            firstSent: firstRecorded ?? start, lastSent: lastSent,
            latency: latency, lag: lag)
    }

    private static func exchangeOne(socket: ZMQSocket, codec: WireCodec, user: String) throws {
        let id = UUID().uuidString.lowercased()
        _ = try socket.send([Data(), try payload(id: id, user: user, index: 1, codec: codec)])
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if try ZMQPoller.isReadable(socket, waitingMilliseconds: 100) {
                while let frames = try socket.receiveMessage(dontWait: true) {
                    if frames.last.flatMap({ JSONFieldScanner($0).string("inReplyTo") }) == id { return }
                }
            }
        }
        throw ValidationFailure("intent-handler did not answer a first intent within 10 s")
    }

    /// The envelope the gateway would send for the same request: a UUID id, a trace context.
    static func payload(id: String, user: String, index: Int, codec: WireCodec) throws -> Data {
        var envelope = Envelope(id: id, type: MessageType.recordTension.rawValue, user: user, body: RecordTensionBody(level: levels[index % levels.count]))
        envelope.traceparent = "00-\(hex(16))-\(hex(8))-01"
        return try codec.encode(envelope)
    }

    private static func hex(_ bytes: Int) -> String {
        (0..<bytes).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }

    /// `POST /v1/intents` on schedule, each from a task of its own, round-robin over `clients`
    /// (an HTTP/2 connection each, or one pool of HTTP/1.1 connections); a round trip is timed
    /// from the call to the end of the body. `path` names the run.
    static func throughGateway(
        clients: [HTTPClient], path: String, baseURL: String, authorizations: [String], schedule: Schedule, round: Int
    ) async throws -> PacedIntentRun {
        struct Tally {
            var latency = Histogram<UInt64>.latencyMicroseconds()
            var answered = 0
            var errors = 0
            var firstError: String?
        }
        let tally = Locked(Tally())
        let bodies = levels.map { ByteBuffer(string: #"{"type":"RecordTensionIntent","body":{"level":\#($0)}}"#) }
        // One request first on each client: its connection is up before the clock starts.
        for (index, client) in clients.enumerated() {
            let response = try await client.execute(
                request(baseURL: baseURL, authorization: authorizations[index % authorizations.count], body: bodies[1]), timeout: .seconds(10))
            _ = try await response.body.collect(upTo: 1 << 20)
            guard response.status == .ok else { throw ValidationFailure("the first POST /v1/intents answered \(response.status)") }
        }
        var lag = Histogram<UInt64>.latencyMicroseconds()
        let start = ContinuousClock.now + .milliseconds(20)
        var firstRecorded: ContinuousClock.Instant?
        var lastSent = start
        await withDiscardingTaskGroup { group in
            for index in 0..<schedule.total {
                let due = start + schedule.interval * index
                if due > .now { try? await Task.sleep(until: due, clock: .continuous) }
                let request = request(
                    baseURL: baseURL, authorization: authorizations[index % authorizations.count], body: bodies[index % bodies.count])
                let client = clients[index % clients.count]
                let recorded = index >= schedule.warmUp
                let sent = ContinuousClock.now
                if recorded {
                    _ = lag.record((sent - due).asMicroseconds)
                    if firstRecorded == nil { firstRecorded = sent }
                    lastSent = sent
                }
                group.addTask {
                    var failure: String?
                    do {
                        let response = try await client.execute(request, timeout: .seconds(10))
                        _ = try await response.body.collect(upTo: 1 << 20)
                        if response.status != .ok { failure = "HTTP \(response.status.code)" }
                    } catch {
                        failure = "\(error)"
                    }
                    let elapsed = ContinuousClock.now - sent
                    guard recorded else { return }
                    tally.withLock { tally in
                        tally.answered += 1
                        if let failure {
                            tally.errors += 1
                            if tally.firstError == nil { tally.firstError = failure }
                        }
                        _ = tally.latency.record(elapsed.asMicroseconds)
                    }
                }
            }
        }
        let result = tally.withLock { $0 }
        if let error = result.firstError { Console.error("gateway intents, round \(round): \(result.errors) errors, the first: \(error)") }
        return PacedIntentRun(
            path: path, round: round, rate: schedule.rate, sent: schedule.count, answered: result.answered, errors: result.errors,
            firstSent: firstRecorded ?? start, lastSent: lastSent,
            latency: result.latency, lag: lag)
    }

    private static func request(baseURL: String, authorization: String, body: ByteBuffer) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: baseURL + "/v1/intents")
        request.method = .POST
        request.headers.add(name: "Authorization", value: authorization)
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(body)
        return request
    }
}
