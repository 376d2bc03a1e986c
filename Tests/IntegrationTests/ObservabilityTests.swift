import Foundation
import Observability
import Testing
import WidgetBusProtocol
import WidgetDomain

/// Every service with `WIDGETBUS_HTTP_LISTEN` set serves its metrics: the real executables on
/// free loopback ports, real intents and samples, every `/metrics` scraped with a plain HTTP
/// client and read by the exposition format's rules (``PrometheusText``).
@Suite(.serialized, .blockingThreads) struct ObservabilityTests {
    /// Starts every service, each serving metrics on a free port; returns their `/metrics` URLs.
    static func startEverything(_ bus: BusFixture) throws -> [BusFixture.Service: String] {
        var urls: [BusFixture.Service: String] = [:]
        for service in [BusFixture.Service.intentHandler, .metricsIngest, .timelineService, .snapshotWriter, .syncAgent, .pushGateway] {
            urls[service] = try bus.startServingMetrics(service)
        }
        // app-gateway, with the development keys compose and the local runner use.
        let keys = try GatewayDevKeys.make(in: bus.root.appendingPathComponent("gateway"))
        urls[.appGateway] = try bus.startServingMetrics(
            .appGateway, extraEnvironment: keys.environment.merging(["WIDGETBUS_GATEWAY_LISTEN": "127.0.0.1:\(try freeLoopbackPort())"]) { $1 })
        return urls
    }

    @Test("intents, samples and a sync move every service's counters by what they did, and histograms count")
    func countersMoveByWhatHappened() throws {
        let bus = try BusFixture()
        let urls = try Self.startEverything(bus)
        func scrape(_ service: BusFixture.Service) throws -> PrometheusText { try PrometheusText.scrape(urls[service]!) }
        let before = try scrape(.intentHandler)
        let intentsEndpoint = ["endpoint": "intents"]

        let users = (0..<12).map { "obs-\($0)" }
        for user in users { _ = try bus.send(.recordTension, user: user, body: #"{"level":7}"#) }
        #expect(try bus.sendExpectingError(.recordTension, user: users[0], body: #"{"level":4}"#).code == .invalidLevel)

        // intent-handler: exactly what was sent, counted once each.
        let handler = try scrape(.intentHandler)
        func moved(_ name: String, _ labels: [String: String] = [:]) -> Double {
            (handler.value(name, labels) ?? 0) - (before.value(name, labels) ?? 0)
        }
        let tension = intentsEndpoint.merging(["type": "RecordTensionIntent"]) { $1 }
        #expect(moved("widgetbus_bus_requests_total", tension) == Double(users.count + 1))
        #expect(moved("widgetbus_error_replies_total", ["code": "invalid_level"]) == 1)
        #expect(moved("widgetbus_bus_events_published_total", ["endpoint": "state_events"]) >= Double(users.count))
        #expect(handler.types["widgetbus_bus_request_duration_seconds"] == "histogram")
        #expect(moved("widgetbus_bus_request_duration_seconds_count", intentsEndpoint) >= Double(users.count + 1))
        #expect((handler.value("widgetbus_store_commit_duration_seconds_count", ["store": "intent-handler"]) ?? 0) >= Double(users.count))
        #expect(handler.value("widgetbus_intent_states_cached") == Double(users.count))

        // timeline-service: one timeline per user; its state replica holds them.
        try bus.waitUntil("timeline-service published every timeline", timeout: 15) {
            try scrape(.timelineService).value("widgetbus_timelines_published_total", ["kind": "TensionCheckWidget"]) == Double(users.count)
        }
        let timelines = try scrape(.timelineService)
        #expect(timelines.value("widgetbus_replica_snapshots_requested_total", ["endpoint": "state_events", "reason": "start"]) == 1)
        #expect((timelines.value("widgetbus_replica_entries", ["endpoint": "state_events"]) ?? 0) >= Double(users.count))
        #expect((timelines.value("widgetbus_bus_messages_received_total", ["endpoint": "state_events"]) ?? 0) >= Double(users.count))

        // snapshot-writer: one file per user.
        try bus.waitUntil("snapshot-writer wrote every file", timeout: 15) {
            try scrape(.snapshotWriter).value("widgetbus_snapshot_files_written_total") ?? 0 >= Double(users.count)
        }
        let writer = try scrape(.snapshotWriter)
        #expect(writer.value("widgetbus_snapshot_files_written_total") == Double(users.count))
        #expect((writer.value("widgetbus_snapshot_write_batch_size_count") ?? 0) >= 1)
        #expect(writer.value("widgetbus_snapshot_write_failures_total") == 0)

        // metrics-ingest: the second push of the same sample is a duplicate. (After the files:
        // a new aggregate makes new timelines.)
        try bus.ingest("stress", "--user", users[0], "--score", "55", "--taken-at", WireDate.format(MetricsIngestTests.minute(2)))
        try bus.ingest("stress", "--user", users[0], "--score", "55", "--taken-at", WireDate.format(MetricsIngestTests.minute(2)))
        let sync = try bus.widgetctl("sync", "--user", users[0])
        #expect(sync.status == 0, "sync: \(sync.stdout) \(sync.stderr)")
        let ingest = try scrape(.metricsIngest)
        #expect(ingest.value("widgetbus_metric_samples_total", ["result": "accepted"]) == 1)
        #expect(ingest.value("widgetbus_metric_samples_total", ["result": "duplicate"]) == 1)
        #expect(ingest.value("widgetbus_bus_messages_received_total", ["endpoint": "metrics"]) == 2)

        // Every metric served is declared, as the kind it is declared.
        let kinds = Dictionary(uniqueKeysWithValues: MetricCatalog.all.map { ($0.name, $0.kind.rawValue) })
        for service in urls.keys {
            for (name, type) in try scrape(service).types {
                #expect(kinds[name] == type, "\(service.rawValue) serves \(name) (\(type)), declared \(kinds[name] ?? "nowhere")")
            }
        }

        // sync-agent: the pass asked for, timed.
        let agent = try scrape(.syncAgent)
        #expect((agent.value("widgetbus_sync_passes_total", ["result": "succeeded"]) ?? 0) >= 1)
        #expect((agent.value("widgetbus_sync_pass_duration_seconds_count") ?? 0) >= 1)
        #expect(agent.value("widgetbus_bus_requests_total", ["endpoint": "sync", "type": "SyncRequest"]) == 1)
    }

    @Test("/healthz answers ok, another path 404, another method 405; no user id is ever a label")
    func pathsAndLabels() throws {
        let bus = try BusFixture()
        let port = try #require(URL(string: try bus.startServingMetrics(.intentHandler))?.port)
        _ = try bus.send(.recordTension, user: "label-canary", body: #"{"level":3}"#)
        #expect(try bus.sendExpectingError(.recordTension, user: "label-canary", body: "[]").code == .invalidField)

        #expect(try HTTP.request("GET", port: port, path: "/healthz") == (200, "ok\n"))
        #expect(try HTTP.request("GET", port: port, path: "/nothing").status == 404)
        #expect(try HTTP.request("POST", port: port, path: "/metrics").status == 405)
        let metrics = try HTTP.request("GET", port: port, path: "/metrics")
        #expect(metrics.status == 200)
        let text = try PrometheusText(parsing: metrics.body)
        #expect(!metrics.body.contains("label-canary"), "a user id in the metrics")
        #expect(text.samples.allSatisfy { $0.name.hasPrefix("widgetbus_") })
        #expect(text.value("widgetbus_bus_requests_total", ["type": "undecodable"]) == 1)
    }

    @Test("the sync backlog: the records waiting and the age of the oldest, read from the store at start")
    func syncBacklog() throws {
        let bus = try BusFixture()
        try bus.start(.intentHandler)
        let sent = Date()
        for user in ["backlog-a", "backlog-b", "backlog-c"] { _ = try bus.send(.recordTension, user: user, body: #"{"level":7}"#) }
        let pending = try bus.pendingRecords(user: "backlog-a").count
        try #require(pending > 0, "a tension check leaves a record to sync")
        #expect(bus.stop(.intentHandler) == 0)

        let metrics = try PrometheusText.scrape(try bus.startServingMetrics(.intentHandler))
        #expect(metrics.value("widgetbus_sync_backlog_records") == Double(3 * pending))
        let age = try #require(metrics.value("widgetbus_sync_backlog_oldest_age_seconds"))
        #expect(age > 0 && age <= Date().timeIntervalSince(sent) + 1, "the oldest waited \(age) s")
    }

    @Test("a listen address that is not host:port stops the service at start, saying which")
    func badListenAddress() throws {
        let bus = try BusFixture()
        let result = try runCommand(
            BusFixture.productsDirectory.appendingPathComponent("intent-handler"), [],
            environment: bus.environment.merging(["WIDGETBUS_HTTP_LISTEN": "9464"]) { $1 })
        #expect(result.status != 0)
        #expect(result.stderr.contains("WIDGETBUS_HTTP_LISTEN must be host:port"), "\(result.stderr)")
    }
}

/// A bare HTTP/1.1 exchange on a loopback socket, for methods and paths as they are sent: the
/// status and the body.
enum HTTP {
    static func request(_ method: String, port: Int, path: String) throws -> (status: Int, body: String) {
        let fd = try connectedLoopbackSocket(port: port)
        defer { close(fd) }
        let request = Array("\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)
        guard write(fd, request, request.count) == request.count else { throw POSIXError(.EIO) }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while case let count = read(fd, &buffer, buffer.count), count > 0 { response += buffer[..<count] }
        let text = String(decoding: response, as: UTF8.self)
        guard let split = text.range(of: "\r\n\r\n"), let status = Int(text.split(separator: " ").dropFirst().first ?? "") else {
            throw PrometheusText.Malformed(description: "not an HTTP response: \(text)")
        }
        return (status, String(text[split.upperBound...]))
    }
}

/// Debian's Prometheus (scripts/test.sh installs it) against the real services.
@Suite(.serialized, .blockingThreads) struct PrometheusServerTests {
    static let prometheus = URL(fileURLWithPath: "/usr/bin/prometheus")

    @Test(
        "Prometheus, with the project's scrape configuration, scrapes every service, and promtool finds each /metrics well formed",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/prometheus")))
    func prometheusScrapesEveryService() throws {
        let bus = try BusFixture()
        let urls = try ObservabilityTests.startEverything(bus)
        let users = (0..<5).map { "prom-\($0)" }
        for user in users { _ = try bus.send(.recordTension, user: user, body: #"{"level":5}"#) }

        // Every /metrics passes promtool's own checks: the exposition format, and the naming
        // conventions (help text, units, _total on counters).
        let promtool = try #require(DeploymentConfigurationTests.promtool)
        for (service, url) in urls {
            let text = try String(contentsOf: URL(string: url)!, encoding: .utf8)
            let file = bus.root.appendingPathComponent("\(service.rawValue).prom")
            try text.write(to: file, atomically: true, encoding: .utf8)
            let check = try runCommand(URL(fileURLWithPath: "/bin/sh"), ["-c", "\(promtool.path) check metrics < \(file.path)"], environment: [:])
            #expect(check.status == 0, "promtool check metrics for \(service.rawValue): \(check.stdout) \(check.stderr)")
        }

        // The compose scrape configuration, its targets moved to this test's ports, scraped every second.
        let targets = Dictionary(uniqueKeysWithValues: urls.map { ($0.key.rawValue, URL(string: $0.value)!.port!) })
        let configuration = bus.root.appendingPathComponent("prometheus.yml")
        let rewrite = """
            import json, sys, yaml
            config = yaml.safe_load(open(sys.argv[1]))
            ports = json.loads(sys.argv[2])
            config["global"]["scrape_interval"] = "1s"
            config["global"]["scrape_timeout"] = "1s"
            for job in config["scrape_configs"]:
                job["static_configs"] = [{"targets": [f"127.0.0.1:{ports[job['job_name']]}"]}]
            yaml.safe_dump(config, open(sys.argv[3], "w"))
            """
        let written = try runCommand(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["python3", "-c", rewrite, DeploymentConfigurationTests.deploy.appendingPathComponent("prometheus/prometheus.yml").path,
             String(decoding: try JSONEncoder().encode(targets), as: UTF8.self), configuration.path],
            environment: ProcessInfo.processInfo.environment)
        try #require(written.status == 0, "rewriting the scrape configuration: \(written.stderr)")

        let port = try freeLoopbackPort()
        let server = try ServiceProcess(
            name: "prometheus", executable: Self.prometheus, environment: [:], logDirectory: bus.root,
            arguments: [
                "--config.file=\(configuration.path)", "--storage.tsdb.path=\(bus.root.appendingPathComponent("tsdb").path)",
                "--web.listen-address=127.0.0.1:\(port)",
            ])
        defer { _ = server.terminate() }

        // Every job up, and the intents counted as intent-handler counted them.
        let api = "http://127.0.0.1:\(port)/api/v1/query?query="
        func query(_ promQL: String) throws -> [String: Double] {
            let encoded = promQL.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            guard let data = try? Data(contentsOf: URL(string: api + encoded)!),
                let reply = try? JSONDecoder().decode(QueryReply.self, from: data)
            else { return [:] }
            return Dictionary(reply.data.result.map { ($0.metric["job"] ?? "", Double($0.value[1].description) ?? .nan) }) { first, _ in first }
        }
        try bus.waitUntil("Prometheus scraped every service", timeout: 30) {
            try query("up") == Dictionary(uniqueKeysWithValues: targets.keys.map { ($0, 1.0) })
        }
        try bus.waitUntil("Prometheus has the intents", timeout: 30) {
            try query(#"sum by (job) (widgetbus_bus_requests_total{type="RecordTensionIntent"})"#) == ["intent-handler": Double(users.count)]
        }
        try bus.waitUntil("Prometheus has the timelines", timeout: 30) {
            try query("sum by (job) (widgetbus_timelines_published_total)") == ["timeline-service": Double(users.count)]
        }
    }

    struct QueryReply: Decodable {
        struct Data: Decodable {
            struct Series: Decodable {
                var metric: [String: String]
                var value: [StringOrNumber]
            }

            var result: [Series]
        }

        var data: Data
    }

    /// A Prometheus sample value: `[unix time (number), "value" (string)]`.
    struct StringOrNumber: Decodable, CustomStringConvertible {
        var description: String

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let text = try? container.decode(String.self) {
                description = text
            } else {
                description = "\(try container.decode(Double.self))"
            }
        }
    }
}
