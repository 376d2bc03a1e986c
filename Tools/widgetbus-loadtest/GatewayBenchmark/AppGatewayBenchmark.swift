import ArgumentParser
import AsyncHTTPClient
import CommandLineText
import FakeAPNs
import Foundation
import NIOCore
import NIOHTTP1
import ServiceSupport
import WidgetBusProtocol

#if canImport(Glibc)
import Glibc
#endif

/// Measures app-gateway in front of a real intent-handler and timeline-service (started by
/// scripts/bench-gateway.sh on free ports), each figure next to a baseline of the same run:
///
/// 1. **Intents at a fixed offered rate** (open loop): `POST /v1/intents` over HTTPS, from a
///    client on one NIO event loop (HTTP/1.1, as cheap as the DEALER: ``EventLoopIntents``) and
///    from async-http-client on HTTP/1.1 and on HTTP/2 (what an app-like Swift client costs on
///    the same cores), against the same intents sent straight to intent-handler from a DEALER at
///    the same rate: the round trip's p50 and p99 on each path, and what the gateway adds to the
///    p99 for each client.
/// 2. **Conditional GETs answered 304** from the gateway's copy of the published timelines, as
///    many as it answers with enough in flight: requests per second and the gateway's CPU per
///    request, against `/healthz` on the same gateway with the same client (the server, TLS and
///    HTTP stack without a token or a lookup); from async-http-client, and from wrk when it is
///    installed, over TLS and over plain HTTP/1.1 on loopback.
/// 3. **Open event streams**, one per user: the gateway's resident memory once all are open, and
///    how soon a change (a tap on the bus) reaches its stream; over HTTPS with a TLS connection
///    per stream, HTTPS/HTTP/2 with many streams per connection, and plain HTTP/1.1.
///
/// It starts each app-gateway itself (TLS files from ``LocalhostCertificates``, an issuer made for
/// the run, limits that never refuse the load) beside this executable.
struct AppGatewayBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "app-gateway",
        abstract: "Benchmark app-gateway: paced intents against the bus, 304s per second and CPU, memory and delay of open event streams.",
        discussion: """
            Needs intent-handler and timeline-service running on the endpoints the environment names \
            (WIDGETBUS_INTENTS, WIDGETBUS_TIMELINES, WIDGETBUS_TIMELINE_EVENTS); starts app-gateway beside this \
            executable for each phase. scripts/bench-gateway.sh starts everything and runs it.
            """
    )

    @Option(help: "Phases to run, comma-separated: intents, gets, streams.")
    var phases = "intents,gets,streams"

    @Option(help: "Rounds of the intents and GET measurements; the median round is reported.")
    var rounds = 3

    @Option(help: "Offered intent rate, per second (open loop).")
    var intentRate = 1_000.0

    @Option(help: "Seconds of intents measured per round and path (after one second of warm-up).")
    var intentSeconds = 10.0

    @Option(help: "Users the intents are spread over (each with its own token).")
    var intentUsers = 1_000

    @Option(help: "HTTP/2 connections (async-http-client instances) the gateway's intents and GETs are spread over.")
    var connections = 4

    @Option(help: "HTTP/1.1 keep-alive connections of each HTTP/1.1 client of the gateway's intents (async-http-client's soft limit; one request in flight on each).")
    var http1Connections = 64

    @Option(help: "Clients of the gateway's intents, comma-separated: nio-h1 (HTTP/1.1 from one event loop), ahc-h1, ahc-h2 (async-http-client on HTTP/1.1, on HTTP/2); all over TLS.")
    var intentClients = IntentClient.allCases.map(\.rawValue).joined(separator: ",")

    /// A client of the gateway's intents; its run's path is `gateway-` and its name.
    enum IntentClient: String, CaseIterable {
        case nioHTTP1 = "nio-h1"
        case ahcHTTP1 = "ahc-h1"
        case ahcHTTP2 = "ahc-h2"
    }

    private var chosenIntentClients: [IntentClient] {
        intentClients.split(separator: ",").compactMap { IntentClient(rawValue: String($0)) }
    }

    @Option(help: "Seconds of each GET measurement.")
    var getSeconds = 10.0

    @Option(help: "GETs in flight from async-http-client.")
    var getInFlight = 128

    @Option(help: "Users whose timeline the conditional GETs ask for.")
    var getUsers = 64

    @Option(help: "GET clients, comma-separated: ahc-h2-tls, wrk-tls, wrk-plain, ahc-h1-plain.")
    var getClients = "ahc-h2-tls,wrk-tls,wrk-plain,ahc-h1-plain"

    @Option(help: "wrk executable (the GETs from wrk are skipped when it is not found).")
    var wrk = "/usr/bin/wrk"

    @Option(help: "wrk threads.")
    var wrkThreads = 1

    @Option(help: "wrk connections.")
    var wrkConnections = 64

    @Option(help: "Event streams to open, one per user.")
    var streams = 10_000

    @Option(help: "Stream configurations, comma-separated: tls-h1, tls-h2, plain-h1.")
    var streamConfigurations = "tls-h1,tls-h2,plain-h1"

    @Option(help: "Streams per HTTP/2 connection in tls-h2 (the gateway allows 100 at once on a connection).")
    var streamsPerConnection = 100

    @Option(help: "Changes timed from a tap to its stream.")
    var changes = 200

    @Option(help: "Milliseconds between two taps.")
    var changeIntervalMs = 50

    @Option(help: "Streams being opened at once.")
    var openConcurrency = 256

    @Option(help: "Write the results as JSON to this file.")
    var json: String?

    @Option(name: .customLong("pid"), help: "NAME=PID of a service whose CPU per intent to report (repeatable).")
    var pids: [String] = []

    struct Machine: Codable {
        var processors: Int
        var cpuModel: String
        var loadAverageAtStart: String
        var loadAverageAtEnd: String
        var command: String
        var started: String
    }

    struct IntentSummary: Codable {
        var rounds: [PacedIntentRun]
        var directP50MedianMilliseconds: Double
        var directP99MedianMilliseconds: Double
        var gateway: [GatewayIntentSummary]
        var barMilliseconds: Double
    }

    /// The gateway's intents from one client against the direct path of the same rounds.
    struct GatewayIntentSummary: Codable {
        /// `gateway-nio-h1`, `gateway-ahc-h1` or `gateway-ahc-h2`, as in the rounds' `path`.
        var path: String
        var p50MedianMilliseconds: Double
        var p99MedianMilliseconds: Double
        /// The median over rounds of (gateway p99 − direct p99) in the same round.
        var p99DifferenceMedianMilliseconds: Double
        var meetsBar: Bool
    }

    struct ThroughputSummary: Codable {
        var client: String
        var target: String
        var rounds: Int
        var requestsPerSecondMedian: Double
        var gatewayCPUMillisecondsPerRequestMedian: Double
        var clientCPUMillisecondsPerRequestMedian: Double?
    }

    struct GetResults: Codable {
        var runs: [ThroughputRun]
        var summaries: [ThroughputSummary]
        var barRequestsPerSecond: Double
        var barCPUMillisecondsPerRequest: Double
    }

    struct Results: Codable {
        var machine: Machine
        var intents: IntentSummary?
        var conditionalGets: GetResults?
        var eventStreams: [EventStreamRun]
        var streamBars: StreamBars
    }

    struct StreamBars: Codable {
        var rssMegabytes = 150.0
        var delayMilliseconds = 100.0
    }

    func validate() throws {
        guard http1Connections >= 1, connections >= 1 else {
            throw ValidationError("--http1-connections and --connections take 1 or more")
        }
        let names = intentClients.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard !names.isEmpty, Set(names).count == names.count, names.allSatisfy({ IntentClient(rawValue: $0) != nil }) else {
            throw ValidationError(
                "--intent-clients takes \(IntentClient.allCases.map(\.rawValue).joined(separator: ", ")), each at most once: \(intentClients)")
        }
    }

    func run() throws {
        raiseOpenFileLimit()
        let environment = ProcessInfo.processInfo.environment
        let selected = Set(phases.split(separator: ",").map(String.init))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("widgetbus-gatewaybench-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { if environment["WIDGETBUS_GATEWAY_BENCH_KEEP"] == nil { try? FileManager.default.removeItem(at: directory) } }
        let files = try GatewayFiles(directory: directory)
        var machine = Machine(
            processors: ProcessInfo.processInfo.activeProcessorCount, cpuModel: Self.cpuModel, loadAverageAtStart: ProcessFigures.loadAverage,
            loadAverageAtEnd: "", command: CommandLine.arguments.joined(separator: " "), started: ISO8601DateFormatter().string(from: Date()))
        Console.line("app-gateway benchmark: \(machine.processors) vCPU, \(machine.cpuModel), load average \(machine.loadAverageAtStart)")
        Console.line("command: \(machine.command)")
        Console.line("open files: \(Self.openFileLimit) a process")

        var intents: IntentSummary?
        var gets: GetResults?
        if selected.contains("intents") || selected.contains("gets") {
            let gateway = try GatewayUnderTest(transport: .tls, files: files, environment: environment, name: "gateway-tls")
            defer { gateway.stop() }
            Console.line("app-gateway (HTTPS) pid \(gateway.pid) on \(gateway.baseURL)")
            // HTTP/2 clients for the GETs, and for the intents when async-http-client's HTTP/2 path is chosen.
            let needsHTTP2 = selected.contains("gets") || selected.contains("intents") && chosenIntentClients.contains(.ahcHTTP2)
            let clients = try (needsHTTP2 ? 0..<connections : 0..<0).map { _ in
                try BenchHTTPClients.make(caPEM: files.certificates.caPEM, version: .automatic)
            }
            defer { try? waitFor { await BenchHTTPClients.shutdown(clients) } }
            if selected.contains("intents") {
                let http1 =
                    chosenIntentClients.contains(.ahcHTTP1)
                    ? [try BenchHTTPClients.make(caPEM: files.certificates.caPEM, version: .http1Only, http1Connections: http1Connections)] : []
                defer { try? waitFor { await BenchHTTPClients.shutdown(http1) } }
                intents = try measureIntents(gateway: gateway, http1: http1, http2: clients, files: files, environment: environment)
            }
            if selected.contains("gets") {
                gets = try measureGets(tlsGateway: gateway, clients: clients, files: files, environment: environment)
            }
        }

        var streamRuns: [EventStreamRun] = []
        if selected.contains("streams") {
            let subjects = (0..<streams).map { "sse-\($0)" }
            let minting = ContinuousClock.now
            let authorizations = try subjects.map { "Bearer " + (try files.issuer.token(subject: $0)) }
            Console.line("")
            Console.line("event streams: \(streams), one per user (\(streams) tokens minted in \((ContinuousClock.now - minting).asSeconds.text(1)) s)")
            for name in streamConfigurations.split(separator: ",").map(String.init) {
                let configuration = try EventStreams.configuration(named: name, streamsPerConnection: streamsPerConnection)
                do {
                    let run = try EventStreams.measure(
                        configuration, files: files, environment: environment, subjects: subjects, authorizations: authorizations,
                        samples: changes, sampleInterval: .milliseconds(changeIntervalMs), openConcurrency: openConcurrency)
                    streamRuns.append(run)
                    printStreamRun(run)
                } catch {
                    Console.error("event streams, \(name): \(error)")
                }
            }
        }

        machine.loadAverageAtEnd = ProcessFigures.loadAverage
        let results = Results(machine: machine, intents: intents, conditionalGets: gets, eventStreams: streamRuns, streamBars: StreamBars())
        printSummary(results)
        if let json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(results).write(to: URL(fileURLWithPath: json))
            Console.line("results: \(json)")
        }
    }

    // MARK: - Intents

    private func measureIntents(
        gateway: GatewayUnderTest, http1: [HTTPClient], http2: [HTTPClient], files: GatewayFiles, environment: [String: String]
    ) throws -> IntentSummary {
        let subjects = (0..<intentUsers).map { "intent-\($0)" }
        let authorizations = try subjects.map { "Bearer " + (try files.issuer.token(subject: $0)) }
        let users = subjects.map(BenchIssuer.user)
        let schedule = PacedIntents.Schedule(rate: intentRate, warmUp: Int(intentRate), count: Int(intentRate * intentSeconds))
        let endpoint = BusEndpoint.intents.resolve(in: environment)
        var processes = try ServiceProcesses(arguments: pids, localDirectory: nil).pids
        processes["app-gateway"] = gateway.pid
        processes["load generator"] = getpid()
        Console.line("")
        Console.line(
            "intents: \(Int(intentRate))/s offered (open loop) for \(intentSeconds.text(0)) s after 1 s of warm-up, \(intentUsers) users; "
                + "gateway: HTTPS POST /v1/intents from "
                + chosenIntentClients.map { client in
                    switch client {
                    case .nioHTTP1: "nio-h1 (one event loop, \(http1Connections) keep-alive connections)"
                    case .ahcHTTP1: "ahc-h1 (async-http-client, \(http1Connections) keep-alive connections)"
                    case .ahcHTTP2: "ahc-h2 (async-http-client, \(connections) HTTP/2 connections)"
                    }
                }.joined(separator: ", ") + "; direct: a DEALER to intent-handler")
        let baseURL = gateway.baseURL
        var paths: [(name: String, run: (Int) throws -> PacedIntentRun)] = [
            (
                "direct",
                { round in try PacedIntents.direct(endpoint: endpoint, users: users, schedule: schedule, round: round) }
            )
        ]
        let (port, caPEM, connectionsPerClient) = (gateway.port, files.certificates.caPEM, http1Connections)
        for client in chosenIntentClients {
            let path = "gateway-\(client.rawValue)"
            func asyncHTTPClient(_ clients: [HTTPClient]) -> (Int) throws -> PacedIntentRun {
                { round in
                    try waitFor {
                        try await PacedIntents.throughGateway(
                            clients: clients, path: path, baseURL: baseURL, authorizations: authorizations, schedule: schedule, round: round)
                    }
                }
            }
            switch client {
            case .nioHTTP1:
                paths.append(
                    (
                        path,
                        { round in
                            try EventLoopIntents.run(
                                port: port, caPEM: caPEM, connections: connectionsPerClient, authorizations: authorizations, schedule: schedule,
                                round: round, path: path)
                        }
                    ))
            case .ahcHTTP1: paths.append((path, asyncHTTPClient(http1)))
            case .ahcHTTP2: paths.append((path, asyncHTTPClient(http2)))
            }
        }
        var runs: [PacedIntentRun] = []
        for round in 1...rounds {
            // Rotating which path goes first, so none always runs on the warmer machine.
            let shift = (round - 1) % paths.count
            var measured: [PacedIntentRun] = []
            for (_, run) in paths[shift...] + paths[..<shift] {
                measured.append(try withCPU(of: processes, intents: schedule.total) { try run(round) })
            }
            runs += measured
            let direct = measured.first { $0.path == "direct" }!
            Console.line(
                "round \(round): direct p50 \(direct.p50Milliseconds.text(3)) p99 \(direct.p99Milliseconds.text(3)) ms "
                    + "(\(direct.achievedPerSecond.text(0))/s, \(direct.errors) errors, \(direct.unanswered) unanswered)")
            for through in measured where through.path != "direct" {
                Console.line(
                    "  \(through.path): p50 \(through.p50Milliseconds.text(3)) p99 \(through.p99Milliseconds.text(3)) ms "
                        + "(\(through.achievedPerSecond.text(0))/s, \(through.errors) errors, \(through.unanswered) unanswered, send lag p99 "
                        + "\(through.sendLagP99Milliseconds.text(3)) ms) · p99 difference \((through.p99Milliseconds - direct.p99Milliseconds).text(3)) ms")
            }
        }
        for (path, _) in paths {
            let cpu = runs.filter { $0.path == path }.map(\.cpuMillisecondsPerIntent)
            let names = cpu.first.map { $0.keys.sorted() } ?? []
            Console.line(
                "  \(path): CPU per intent (ms, median of rounds, warm-up included): "
                    + names.map { name in "\(name) \(Self.median(cpu.compactMap { $0[name] }).text(3))" }.joined(separator: " · "))
        }
        let direct = runs.filter { $0.path == "direct" }
        let bar = 5.0
        let gateway = paths.dropFirst().map { path, _ in
            let through = runs.filter { $0.path == path }
            let difference = Self.median(zip(through, direct).map { $0.p99Milliseconds - $1.p99Milliseconds })
            return GatewayIntentSummary(
                path: path, p50MedianMilliseconds: Self.median(through.map(\.p50Milliseconds)),
                p99MedianMilliseconds: Self.median(through.map(\.p99Milliseconds)), p99DifferenceMedianMilliseconds: difference,
                meetsBar: difference <= bar && through.allSatisfy { $0.errors == 0 && $0.unanswered == 0 })
        }
        return IntentSummary(
            rounds: runs, directP50MedianMilliseconds: Self.median(direct.map(\.p50Milliseconds)),
            directP99MedianMilliseconds: Self.median(direct.map(\.p99Milliseconds)), gateway: gateway, barMilliseconds: bar)
    }

    /// Runs `body` and adds each process's CPU over it, per intent sent, to its result.
    private func withCPU(of processes: [String: Int32], intents: Int, _ body: () throws -> PacedIntentRun) throws -> PacedIntentRun {
        let before = processes.compactMapValues(ProcessFigures.cpuSeconds(of:))
        var run = try body()
        for (name, pid) in processes {
            guard let start = before[name], let end = ProcessFigures.cpuSeconds(of: pid) else { continue }
            run.cpuMillisecondsPerIntent[name] = (end - start) * 1_000 / Double(max(1, intents))
        }
        return run
    }

    // MARK: - Conditional GETs

    private func measureGets(
        tlsGateway: GatewayUnderTest, clients: [HTTPClient], files: GatewayFiles, environment: [String: String]
    ) throws -> GetResults {
        let chosen = Set(getClients.split(separator: ",").map(String.init))
        let subjects = (0..<getUsers).map { "etag-\($0)" }
        let issuer = files.issuer
        let tlsURL = tlsGateway.baseURL
        let tagged = try waitFor { try await ConditionalGets.prepare(client: clients[0], baseURL: tlsURL, subjects: subjects, issuer: issuer) }
        Console.line("")
        Console.line("conditional GETs: \(getUsers) users' TensionCheckWidget timelines, each with its ETag, answered 304 by the gateway's copy")
        var runs: [ThroughputRun] = []
        let seconds = getSeconds, inFlight = getInFlight
        let haveWrk = FileManager.default.isExecutableFile(atPath: wrk)
        if !haveWrk, chosen.contains("wrk-tls") || chosen.contains("wrk-plain") {
            Console.line("  (wrk not found at \(wrk): its measurements are skipped; apt-get install -y wrk)")
        }

        func ahc(_ name: String, gatewayURL: String, pid: Int32, clients: [HTTPClient]) throws {
            let conditional = tagged.map { ConditionalGets.conditional(baseURL: gatewayURL, $0) }
            let health = tagged.map { entry in
                var request = ConditionalGets.conditional(baseURL: gatewayURL, entry)
                request.url = gatewayURL + "/healthz"
                return request
            }
            // A second of each first, not recorded: connections, caches, the CPU's clock.
            _ = try waitFor {
                await ConditionalGets.closedLoop(
                    target: "warm-up", clientName: name, round: 0, clients: clients, requests: conditional, expected: .notModified, inFlight: inFlight,
                    seconds: 1, gatewayPID: pid)
            }
            for round in 1...rounds {
                for (target, requests, expected) in [("healthz", health, HTTPResponseStatus.ok), ("timeline 304", conditional, .notModified)] {
                    let run = try waitFor {
                        await ConditionalGets.closedLoop(
                            target: target, clientName: name, round: round, clients: clients, requests: requests, expected: expected,
                            inFlight: inFlight, seconds: seconds, gatewayPID: pid)
                    }
                    runs.append(run)
                    printThroughput(run)
                }
            }
        }

        func wrkRuns(gateway: GatewayUnderTest) throws {
            let entry = tagged[0]
            let headers = [("Authorization", entry.authorization), ("If-None-Match", entry.etag)]
            for round in 1...rounds {
                for (target, path) in [("healthz", "/healthz"), ("timeline 304", entry.path)] {
                    let run = try ConditionalGets.wrk(
                        executable: wrk, target: target, round: round, url: gateway.baseURL + path, headers: headers, threads: wrkThreads,
                        connections: wrkConnections, seconds: Int(getSeconds), gatewayPID: gateway.pid, scriptDirectory: files.directory)
                    runs.append(run)
                    printThroughput(run)
                }
            }
        }

        if chosen.contains("ahc-h2-tls") {
            try ahc(
                "async-http-client, HTTP/2 over TLS, \(clients.count) connections, \(inFlight) in flight", gatewayURL: tlsURL, pid: tlsGateway.pid,
                clients: clients)
        }
        if chosen.contains("wrk-tls"), haveWrk { try wrkRuns(gateway: tlsGateway) }
        if chosen.contains("wrk-plain") && haveWrk || chosen.contains("ahc-h1-plain") {
            tlsGateway.stop()
            let plain = try GatewayUnderTest(transport: .plain, files: files, environment: environment, name: "gateway-plain")
            defer { plain.stop() }
            Console.line("app-gateway (plain HTTP/1.1 on loopback) pid \(plain.pid) on \(plain.baseURL)")
            let plainClient = try BenchHTTPClients.make(caPEM: files.certificates.caPEM, version: .http1Only, http1Connections: inFlight)
            defer { try? waitFor { await BenchHTTPClients.shutdown([plainClient]) } }
            let plainURL = plain.baseURL
            // The new gateway follows the same published editions: the same tags are current.
            try waitFor { try await ConditionalGets.awaitNotModified(client: plainClient, baseURL: plainURL, tagged: tagged) }
            if chosen.contains("wrk-plain"), haveWrk { try wrkRuns(gateway: plain) }
            if chosen.contains("ahc-h1-plain") {
                try ahc("async-http-client, HTTP/1.1, \(inFlight) connections", gatewayURL: plainURL, pid: plain.pid, clients: [plainClient])
            }
        }

        var summaries: [ThroughputSummary] = []
        var seen: [String] = []
        for run in runs where !seen.contains(run.client + "|" + run.target) {
            seen.append(run.client + "|" + run.target)
            let group = runs.filter { $0.client == run.client && $0.target == run.target }
            summaries.append(
                ThroughputSummary(
                    client: run.client, target: run.target, rounds: group.count, requestsPerSecondMedian: Self.median(group.map(\.requestsPerSecond)),
                    gatewayCPUMillisecondsPerRequestMedian: Self.median(group.map(\.gatewayCPUMillisecondsPerRequest)),
                    clientCPUMillisecondsPerRequestMedian: group.allSatisfy { $0.clientCPUMillisecondsPerRequest != nil }
                        ? Self.median(group.compactMap(\.clientCPUMillisecondsPerRequest)) : nil))
        }
        return GetResults(runs: runs, summaries: summaries, barRequestsPerSecond: 15_000, barCPUMillisecondsPerRequest: 0.1)
    }

    // MARK: - Output

    private func printThroughput(_ run: ThroughputRun) {
        let others = run.otherStatuses.isEmpty ? "" : ", other answers \(run.otherStatuses)"
        Console.line(
            "  \(run.client) · \(run.target) · round \(run.round): \(run.requestsPerSecond.text(0)) requests/s "
                + "(\(run.expected) of \(run.requests) as expected\(others)), gateway CPU \(run.gatewayCPUMillisecondsPerRequest.text(4)) ms a request"
                + (run.clientCPUMillisecondsPerRequest.map { ", client CPU \($0.text(4)) ms a request" } ?? "")
                + (run.p99Milliseconds.map { ", p50 \((run.p50Milliseconds ?? 0).text(2)) p99 \($0.text(2)) ms" } ?? "")
                + (run.bytesPerAnswer.map { ", \($0.text(0)) bytes an answer" } ?? ""))
    }

    private func printStreamRun(_ run: EventStreamRun) {
        Console.line(
            "  \(run.configuration) (\(run.description)): \(run.opened) open over \(run.connections) connections, "
                + "gateway RSS \(run.gatewayRSSBeforeMegabytes.text(1)) MB before → \(run.gatewayRSSOpenMegabytes.text(1)) MB open "
                + "(\(run.gatewayRSSFileOpenMegabytes.text(1)) MB of it code mapped from files) "
                + "(\(run.kilobytesPerStream.text(1)) kB a stream) → \(run.gatewayRSSAfterChangesMegabytes.text(1)) MB after the changes; "
                + "opening cost the gateway \(run.gatewayCPUSecondsOpening.text(2)) s of CPU")
        Console.line(
            "    \(run.delivered) of \(run.changes) changes delivered; tap → stream p50 \(run.tapToStreamP50Milliseconds.text(2)) "
                + "p99 \(run.tapToStreamP99Milliseconds.text(2)) max \(run.tapToStreamMaxMilliseconds.text(2)) ms; timeline event → stream p50 "
                + "\(run.eventToStreamP50Milliseconds.text(2)) p99 \(run.eventToStreamP99Milliseconds.text(2)) max \(run.eventToStreamMaxMilliseconds.text(2)) ms")
    }

    private func printSummary(_ results: Results) {
        Console.line("")
        Console.line("summary (load average at the end \(results.machine.loadAverageAtEnd)):")
        if let intents = results.intents {
            Console.line(
                "  intents at \(Int(intentRate))/s: direct p50 \(intents.directP50MedianMilliseconds.text(3)) p99 "
                    + "\(intents.directP99MedianMilliseconds.text(3)) ms (medians of \(rounds) rounds)")
            for gateway in intents.gateway {
                Console.line(
                    "    \(gateway.path): p50 \(gateway.p50MedianMilliseconds.text(3)) p99 \(gateway.p99MedianMilliseconds.text(3)) ms; "
                        + "p99 difference \(gateway.p99DifferenceMedianMilliseconds.text(3)) ms (median of rounds; bar ≤ "
                        + "\(intents.barMilliseconds.text(0)) ms: " + (gateway.meetsBar ? "met" : "MISSED") + ")")
            }
        }
        if let gets = results.conditionalGets {
            for summary in gets.summaries {
                var line = "  \(summary.client) · \(summary.target): \(summary.requestsPerSecondMedian.text(0)) requests/s, gateway CPU "
                    + "\(summary.gatewayCPUMillisecondsPerRequestMedian.text(4)) ms a request"
                if let client = summary.clientCPUMillisecondsPerRequestMedian { line += ", client CPU \(client.text(4)) ms a request" }
                if summary.target == "timeline 304" {
                    let rate = summary.requestsPerSecondMedian >= gets.barRequestsPerSecond
                    let cpu = summary.gatewayCPUMillisecondsPerRequestMedian <= gets.barCPUMillisecondsPerRequest
                    line += " (bars ≥ 15,000/s: \(rate ? "met" : "MISSED"); ≤ 0.1 ms: \(cpu ? "met" : "MISSED"))"
                }
                Console.line(line)
            }
        }
        for run in results.eventStreams {
            let rss = run.gatewayRSSOpenMegabytes <= results.streamBars.rssMegabytes && run.opened == run.streams
            let delay = run.tapToStreamP99Milliseconds <= results.streamBars.delayMilliseconds && run.delivered == run.changes
            Console.line(
                "  \(run.streams) streams, \(run.configuration): gateway RSS \(run.gatewayRSSOpenMegabytes.text(1)) MB (bar ≤ 150: \(rss ? "met" : "MISSED")), "
                    + "tap → stream p99 \(run.tapToStreamP99Milliseconds.text(2)) ms, event → stream p99 \(run.eventToStreamP99Milliseconds.text(2)) ms "
                    + "(bar ≤ 100: \(delay ? "met" : "MISSED"))")
        }
    }

    // MARK: - Helpers

    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        return sorted.count.isMultiple(of: 2) ? (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2 : sorted[sorted.count / 2]
    }

    static var cpuModel: String {
        let text = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").first { $0.hasPrefix("model name") }.flatMap { $0.split(separator: ":", maxSplits: 1).last }
            .map { $0.trimmingCharacters(in: .whitespaces) } ?? "unknown"
    }

    /// The soft limit of open files raised to the hard one: 10,000 streams are 10,000 sockets in
    /// this process and in the gateway, which inherits the limit.
    private func raiseOpenFileLimit() {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }

    static var openFileLimit: String {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return "unknown" }
        return "\(limit.rlim_cur) (hard \(limit.rlim_max))"
    }
}
