import ArgumentParser
import AsyncHTTPClient
import Crypto
import FakeAPNs
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NIOCore
import NIOHTTP1
import NIOSSL
import ServiceSupport
import WidgetBusProtocol
import WidgetDomain
import ZeroMQ

/// Measures push-gateway alone: this command plays the owners it follows — intent-handler's push
/// tokens and timeline-service's timelines, on their endpoints, answering their snapshot
/// requests — and APNs (``FakeAPNs``, HTTP/2 over TLS), and starts push-gateway twice:
///
/// - **following**: a flood of `TimelineChanged` events, each a change of content for one user's
///   widget, under a budget that pushes each device once: the changes per second the gateway
///   reads, compares, plans and commits;
/// - **pushing**: changes round-robin over the users with no budget, so every change is a push:
///   the pushes per second it sends to APNs and has answered.
///
/// In the same run it measures the floor under the second: the same POSTs sent straight to the
/// fake APNs by one async-http-client, as many in flight as push-gateway keeps.
struct PushGatewayBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "push-gateway",
        abstract: "Benchmark push-gateway: timeline changes followed per second, and pushes sent per second to a fake APNs.",
        discussion: """
            Plays intent-handler's and timeline-service's endpoints itself (WIDGETBUS_STATE_EVENTS, \
            WIDGETBUS_STATE_SNAPSHOT, WIDGETBUS_TIMELINE_EVENTS, WIDGETBUS_TIMELINES: nothing else may bind them) and \
            starts the push-gateway beside this executable. scripts/bench-push.sh runs it.
            """
    )

    @Option(help: "Users, each with one device token covering JitterWidget.")
    var users = 10_000

    @Option(help: "Timeline changes in the following phase.")
    var changes = 50_000

    @Option(help: "Timeline changes in the pushing phase, round-robin over the users: with no more than there are users, each is a push.")
    var pushes = 10_000

    @Option(help: "POSTs in the raw HTTP/2 baseline.")
    var baseline = 10_000

    @Option(help: "Write the results as JSON to this file.")
    var json: String?

    struct Phase: Codable {
        var changes: Int
        var seconds: Double
        var changesPerSecond: Double
        var pushesAnswered: Int
        var pushesPerSecond: Double
    }

    struct Results: Codable {
        var users: Int
        var following: Phase
        var pushing: Phase
        var rawHTTP2PostsPerSecond: Double
        var rawInFlight: Int
    }

    func run() throws {
        let environment = ProcessInfo.processInfo.environment
        let apns = try FakeAPNs()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("widgetbus-pushbench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = directory.appendingPathComponent("AuthKey.p8")
        try P256.Signing.PrivateKey().pemRepresentation.write(to: key, atomically: true, encoding: .utf8)
        let ca = directory.appendingPathComponent("ca.pem")
        try apns.caPEM.write(to: ca, atomically: true, encoding: .utf8)

        let owners = try PlayedOwners(environment: environment, users: users)
        defer { owners.close() }
        var gatewayEnvironment = environment.merging([
            "WIDGETBUS_APNS_MODE": "send", "WIDGETBUS_APNS_KEY_FILE": key.path, "WIDGETBUS_APNS_KEY_ID": "BENCH12345",
            "WIDGETBUS_APNS_TEAM_ID": "TEAM123456", "WIDGETBUS_APNS_TOPIC": "com.example.bench.push-type.widgets",
            "WIDGETBUS_APNS_SANDBOX_URL": apns.url, "WIDGETBUS_APNS_PRODUCTION_URL": apns.url, "WIDGETBUS_APNS_CA_FILE": ca.path,
            "WIDGETBUS_LOG_LEVEL": "warning",
        ]) { $1 }

        // Following: one push per device at most (the interval is an hour), so the gateway's
        // work is reading, comparing, planning and committing.
        gatewayEnvironment["WIDGETBUS_PUSH_COALESCE_S"] = "1"
        gatewayEnvironment["WIDGETBUS_PUSH_INTERVAL_S"] = "3600"
        let following = try measure(changes: changes, owners: owners, apns: apns, environment: gatewayEnvironment, directory: directory, name: "following",
            budgetHoldsPushes: true)

        // Pushing: no budget, so every change is a push (one waits while its device's last is in flight).
        gatewayEnvironment["WIDGETBUS_PUSH_COALESCE_S"] = "0"
        gatewayEnvironment["WIDGETBUS_PUSH_INTERVAL_S"] = "0"
        gatewayEnvironment["WIDGETBUS_PUSH_DAILY_LIMIT"] = "1000"
        let pushing = try measure(changes: pushes, owners: owners, apns: apns, environment: gatewayEnvironment, directory: directory, name: "pushing",
            budgetHoldsPushes: false)

        let inFlight = 64
        let raw = try rawPostsPerSecond(to: apns, caPEM: apns.caPEM, requests: baseline, inFlight: inFlight)
        let results = Results(users: users, following: following, pushing: pushing, rawHTTP2PostsPerSecond: raw, rawInFlight: inFlight)
        print(
            """
            push-gateway, \(users) users, one device token each:
              following: \(following.changes) changes in \(String(format: "%.2f", following.seconds)) s = \(Int(following.changesPerSecond)) changes/s
              pushing:   \(pushing.changes) changes, \(pushing.pushesAnswered) pushes answered in \(String(format: "%.2f", pushing.seconds)) s = \(Int(pushing.pushesPerSecond)) pushes/s
              raw HTTP/2 POSTs to the same fake APNs (async-http-client, \(inFlight) in flight): \(Int(raw))/s
            """)
        if let json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(results).write(to: URL(fileURLWithPath: json))
        }
    }

    /// Starts a push-gateway with `environment` on a data directory of its own, waits until it
    /// has read every user's token and widget, publishes `changes` changes round-robin over the
    /// users and times until it has seen them all and answered every push they made.
    private func measure(
        changes: Int, owners: PlayedOwners, apns: FakeAPNs, environment: [String: String], directory: URL, name: String,
        budgetHoldsPushes: Bool
    ) throws -> Phase {
        var environment = environment
        let port = try PlayedOwners.freeLoopbackPort()
        environment["WIDGETBUS_HTTP_LISTEN"] = "127.0.0.1:\(port)"
        environment["WIDGETBUS_DATA_DIR"] = directory.appendingPathComponent(name).path
        let gateway = try Process.start(
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("push-gateway"),
            environment: environment)
        defer {
            gateway.terminate()
            gateway.waitUntilExit()
        }
        let metrics = "http://127.0.0.1:\(port)/metrics"
        try owners.serve(until: "push-gateway has read every widget", timeout: 60) {
            Self.metric("widgetbus_replica_entries", #"endpoint="timeline_events""#, at: metrics) == Double(users)
        }
        // Every event it reads is one of these changes: this command publishes no heartbeat.
        func eventsRead() -> Double { Self.metric("widgetbus_bus_messages_received_total", #"endpoint="timeline_events""#, at: metrics) ?? 0 }
        let requestsBefore = apns.requestCount
        let eventsBefore = eventsRead()
        let start = ContinuousClock.now
        try owners.publishChanges(changes)
        // Read: every change. Answered: every push sent so far has its answer, and none waits but
        // those the budget holds back (the following phase holds each device's second).
        try owners.serve(until: "push-gateway has read every change and answered every push", timeout: 600) {
            let answered = Self.metric("widgetbus_pushes_total", nil, at: metrics) ?? 0
            let dueNow = budgetHoldsPushes ? 0 : Self.metric("widgetbus_pushes_waiting", nil, at: metrics) ?? 1
            return eventsRead() - eventsBefore >= Double(changes) && answered >= Double(apns.requestCount - requestsBefore) && dueNow == 0
        }
        let seconds = (ContinuousClock.now - start).asSeconds
        let answered = apns.requestCount - requestsBefore
        return Phase(
            changes: changes, seconds: seconds, changesPerSecond: Double(changes) / seconds, pushesAnswered: answered,
            pushesPerSecond: Double(answered) / seconds)
    }

    /// The sum of a metric's samples whose labels contain `labels` (nil: all), read from `url`.
    static func metric(_ name: String, _ labels: String?, at url: String) -> Double? {
        MetricsPage(url: URL(string: url)!)?.value(name, labels)
    }

    /// POSTs shaped like push-gateway's, straight to the fake APNs, `inFlight` at a time.
    private func rawPostsPerSecond(to apns: FakeAPNs, caPEM: String, requests: Int, inFlight: Int) throws -> Double {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMBytes(Array(caPEM.utf8)))
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: .init(tlsConfiguration: tls))
        defer { try? client.syncShutdown() }
        func post(_ index: Int) throws -> EventLoopFuture<HTTPClient.Response> {
            var request = try HTTPClient.Request(url: "\(apns.url)/3/device/\(String(format: "%064x", index))", method: .POST)
            request.headers.add(name: "apns-push-type", value: "widgets")
            request.headers.add(name: "apns-topic", value: "com.example.bench.push-type.widgets")
            request.body = .string(#"{"aps":{"content-changed":true}}"#)
            return client.execute(request: request)
        }
        for index in 0..<min(1_000, requests / 10) { _ = try post(-1 - index).wait() }  // warm-up: the connection
        let start = ContinuousClock.now
        var next = 0
        while next < requests {
            let batch = (next..<min(requests, next + inFlight)).map { try? post($0) }
            for future in batch { _ = try future?.wait() }
            next += inFlight
        }
        return Double(requests) / (ContinuousClock.now - start).asSeconds
    }
}

