import AppGatewayIdentity
import AsyncHTTPClient
import FakeAPNs
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL
import Testing
import WidgetBusProtocol

/// app-gateway in front of a private bus: the real executables, HTTPS with a certificate a test
/// CA signed, an issuer whose key the test holds (so it can mint any token, good or bad), and an
/// AsyncHTTPClient that trusts the CA and speaks HTTP/2 or HTTP/1.1 as asked. Set up once, then
/// only read, so concurrent requests of one test may share it.
final class GatewayFixture: @unchecked Sendable {
    static let issuer = "https://dev.widgetbus.test"
    static let audience = "widgetbus-app"
    static let alias = "dev"

    let bus: BusFixture
    let signingKey = IssuerSigningKey(generating: .es256)
    let kid = "test-key"
    let port: Int
    let tls: Bool
    let client: HTTPClient
    var gateway: ServiceProcess?
    private let gatewayEnvironment: [String: String]

    /// Starts intent-handler, timeline-service, metrics-ingest and snapshot-writer (unless
    /// `services` says otherwise), then app-gateway with `extraEnvironment`, over TLS unless `tls`
    /// is false (plain HTTP on loopback).
    init(
        httpVersion: HTTPClient.Configuration.HTTPVersion = .automatic,
        tls: Bool = true,
        services: [BusFixture.Service] = [.intentHandler, .timelineService, .metricsIngest, .snapshotWriter],
        extraEnvironment: [String: String] = [:]
    ) throws {
        self.tls = tls
        bus = try BusFixture()
        for service in services { try bus.start(service) }
        let keys = bus.root.appendingPathComponent("gateway")
        try FileManager.default.createDirectory(at: keys, withIntermediateDirectories: true)
        let certificates = try LocalhostCertificates()
        try certificates.serverCertificatePEM.write(to: keys.appendingPathComponent("cert.pem"), atomically: true, encoding: .utf8)
        try certificates.serverKeyPEM.write(to: keys.appendingPathComponent("key.pem"), atomically: true, encoding: .utf8)
        try signingKey.jwks(kid: kid).write(to: keys.appendingPathComponent("issuer.jwks.json"))
        let issuers = """
            {"issuers":[{"issuer":"\(Self.issuer)","alias":"\(Self.alias)","audiences":["\(Self.audience)"],
              "algorithms":["ES256"],"jwksFile":"issuer.jwks.json"}]}
            """
        try issuers.write(to: keys.appendingPathComponent("issuers.json"), atomically: true, encoding: .utf8)
        port = try freeLoopbackPort()
        var environment = [
            "WIDGETBUS_GATEWAY_LISTEN": "127.0.0.1:\(port)",
            "WIDGETBUS_GATEWAY_ISSUERS": keys.appendingPathComponent("issuers.json").path,
        ]
        if tls {
            environment["WIDGETBUS_GATEWAY_TLS_CERT"] = keys.appendingPathComponent("cert.pem").path
            environment["WIDGETBUS_GATEWAY_TLS_KEY"] = keys.appendingPathComponent("key.pem").path
        }
        gatewayEnvironment = environment.merging(extraEnvironment) { $1 }
        gateway = try bus.start(.appGateway, extraEnvironment: gatewayEnvironment)

        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates([try NIOSSLCertificate(bytes: Array(certificates.caPEM.utf8), format: .pem)])
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
        configuration.httpVersion = httpVersion
        configuration.timeout = .init(connect: .seconds(5), read: .seconds(30))
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    deinit {
        try? client.syncShutdown()
    }

    var baseURL: String { tls ? "https://localhost:\(port)" : "http://127.0.0.1:\(port)" }

    /// Stops app-gateway (SIGTERM) and, when `restart`, starts it again on the same port.
    func stopGateway(restart: Bool = false) throws {
        bus.stop(.appGateway)
        gateway = restart ? try bus.start(.appGateway, extraEnvironment: gatewayEnvironment) : nil
    }

    /// The bus user id a token for `subject` proves.
    static func user(_ subject: String) -> String { "\(alias):\(subject)" }

    /// A token of the test's issuer for `subject`, valid for an hour unless `claims` says otherwise.
    func token(_ subject: String, _ change: (inout IssuedTokenClaims) -> Void = { _ in }) throws -> String {
        var claims = IssuedTokenClaims(issuer: Self.issuer, audience: Self.audience, subject: subject, issuedAt: Date(), lifetime: 3_600)
        change(&claims)
        return try signingKey.sign(claims, kid: kid)
    }

    struct Answer {
        var status: Int
        var headers: HTTPHeaders
        var body: Data
        var version: HTTPVersion

        var text: String { String(decoding: body, as: UTF8.self) }
        func json() throws -> [String: Any] {
            try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any], "a JSON object: \(text)")
        }
        /// The `code` of a problem-details answer.
        var problemCode: String? {
            guard headers.first(name: "content-type") == "application/problem+json" else { return nil }
            return (try? JSONSerialization.jsonObject(with: body) as? [String: Any])?["code"] as? String
        }
    }

    /// One request; `token` is sent as `Authorization: Bearer`.
    func request(
        _ method: HTTPMethod, _ path: String, token: String?, body: String? = nil, headers: [(String, String)] = []
    ) async throws -> Answer {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = method
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: body))
        }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let response = try await client.execute(request, timeout: .seconds(30))
        let bytes = try await response.body.collect(upTo: 8 * 1024 * 1024)
        return Answer(status: Int(response.status.code), headers: response.headers, body: Data(bytes.readableBytesView), version: response.version)
    }

    /// `POST /v1/intents` of `type` with `body` for `subject`'s token.
    func tap(_ subject: String, _ type: String, _ body: String, idempotencyKey: String? = nil) async throws -> Answer {
        try await request(
            .POST, "/v1/intents", token: token(subject), body: #"{"type":"\#(type)","body":\#(body)}"#,
            headers: idempotencyKey.map { [("Idempotency-Key", $0)] } ?? [])
    }
}

/// A Server-Sent Events stream read as it arrives: each event with its id, its data and when it
/// came.
final class EventStreamReader: @unchecked Sendable {
    struct Event {
        var id: String?
        var event: String?
        var data: String
        var arrivedAt: ContinuousClock.Instant
    }

    private let lock = NSLock()
    private var events: [Event] = []
    private var heartbeats = 0
    private var ended = false
    /// Counts what was recorded (and the end), so a waiter knows whether anything came since it
    /// last looked.
    private var generation = 0
    private var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    private var lastWaiter = 0
    private var task: Task<Void, Never>?

    /// Opens `GET /v1/events` with `token` (and `lastEventID`), and reads it until ``close()``.
    init(fixture: GatewayFixture, token: String, lastEventID: String? = nil) async throws {
        var request = HTTPClientRequest(url: fixture.baseURL + "/v1/events")
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        if let lastEventID { request.headers.add(name: "Last-Event-ID", value: lastEventID) }
        let response = try await fixture.client.execute(request, timeout: .seconds(600))
        try #require(response.status == .ok, "the stream opens")
        #expect(response.headers.first(name: "content-type") == "text/event-stream")
        task = Task { [self] in
            var pending = ""
            do {
                for try await chunk in response.body {
                    pending += String(buffer: chunk)
                    while let end = pending.range(of: "\n\n") {
                        let block = String(pending[..<end.lowerBound])
                        pending.removeSubrange(..<end.upperBound)
                        record(block)
                    }
                }
            } catch {}
            markEnded()
        }
    }

    private func markEnded() {
        lock.lock()
        ended = true
        wakeWaiters()
    }

    /// Counts a change and resumes every waiter; called with the lock held, and releases it.
    private func wakeWaiters() {
        generation += 1
        let woken = waiters.values
        waiters.removeAll()
        lock.unlock()
        for waiter in woken { waiter.resume() }
    }

    private func record(_ block: String) {
        var event = Event(id: nil, event: nil, data: "", arrivedAt: .now)
        var isComment = true
        for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix(":") { continue }
            isComment = false
            if line.hasPrefix("id: ") { event.id = String(line.dropFirst(4)) }
            if line.hasPrefix("event: ") { event.event = String(line.dropFirst(7)) }
            if line.hasPrefix("data: ") { event.data += String(line.dropFirst(6)) }
        }
        lock.lock()
        if isComment { heartbeats += 1 } else if event.event != nil { events.append(event) }
        wakeWaiters()
    }

    /// The `timeline` events so far.
    var timelines: [Event] {
        lock.lock()
        defer { lock.unlock() }
        return events.filter { $0.event == "timeline" }
    }

    var heartbeatCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return heartbeats
    }

    /// Waits (at most `timeout`) for a timeline event that `matches`; returns it. Awaited, not
    /// blocking a thread: the reading task needs one of the pool's to record the event.
    func waitForTimeline(timeout: Duration = .seconds(10), _ matches: @escaping @Sendable ([String: Any]) -> Bool) async throws -> Event {
        let deadline = ContinuousClock.now + timeout
        while true {
            let (found, isEnded, seen) = lock.withLock {
                (events.first { $0.event == "timeline" && matches(Self.object($0.data)) }, ended, generation)
            }
            if let found { return found }
            guard !isEnded, await change(after: seen, before: deadline) else {
                let got = lock.withLock { events.map(\.data) }
                Issue.record("no matching timeline event \(isEnded ? "before the stream ended" : "within \(timeout)"); got \(got)")
                throw FixtureError.timedOut("a timeline event")
            }
        }
    }

    /// Returns true once anything was recorded after `seen` (or the stream ended), false when
    /// `deadline` passes first.
    private func change(after seen: Int, before deadline: ContinuousClock.Instant) async -> Bool {
        await Self.finishes({ await self.changed(after: seen) }, before: deadline)
    }

    /// Runs `work` against `deadline`: true when it finishes first, false when the deadline
    /// passes first (`work` is then cancelled and awaited, so it must end when cancelled).
    private static func finishes(_ work: @escaping @Sendable () async -> Void, before deadline: ContinuousClock.Instant) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await work()
                return true
            }
            group.addTask {
                try? await Task.sleep(until: deadline)
                return false
            }
            let finished = await group.next() ?? false
            group.cancelAll()
            return finished
        }
    }

    private func changed(after seen: Int) async {
        let id = lock.withLock {
            lastWaiter += 1
            return lastWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = lock.withLock {
                    guard generation == seen, !Task.isCancelled else { return true }
                    waiters[id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            lock.withLock { waiters.removeValue(forKey: id) }?.resume()
        }
    }

    /// Waits for the server to end the stream (the reading task returns); false when `timeout`
    /// passes first, and the reading is then stopped. Awaited, not blocking a thread: the reading
    /// task needs one of the pool's to finish.
    func ended(within timeout: Duration) async -> Bool {
        guard let task else { return true }
        // Cancelled when the time is up: the reading stops, so its task ends.
        return await Self.finishes({ await withTaskCancellationHandler { await task.value } onCancel: { task.cancel() } }, before: .now + timeout)
    }

    func close() {
        task?.cancel()
    }

    static func object(_ data: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(data.utf8)) as? [String: Any]) ?? [:]
    }
}
