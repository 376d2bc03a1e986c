import Foundation
import Testing

/// `widgetbus-loadtest` against real intent-handler, metrics-ingest and timeline-service processes: a short open
/// loop and a short rate search each write the JSON report with the fields scripts and
/// docs/BENCHMARKS.md read, the SVG chart, the CPU time of the service processes it was given,
/// and, with snapshot-writer's metrics, how far the snapshot files lagged.
@Suite("widgetbus-loadtest", .serialized, .blockingThreads)
struct LoadTestToolTests {
    /// The report's fields: a contract with scripts/bench-loadtest.sh and the committed results.
    static let reportFields: Set<String> = ["startedAt", "configuration", "setupMessages", "setupSeconds", "steps"]
    static let configurationFields: Set<String> = [
        "mode", "durationSeconds", "users", "mix", "graceSeconds", "timeoutMilliseconds", "seed", "intentsEndpoint",
        "timelineEventsEndpoint",
    ]
    static let stepFields: Set<String> = [
        "mode", "durationSeconds", "sent", "replies", "achievedRate", "completedRate", "errors", "timeouts", "unchanged",
        "timelines", "roundTrip", "intentToTimeline", "sendLag", "widgets", "overTime", "percentiles",
    ]
    static let latencyFields: Set<String> = [
        "count", "p50Milliseconds", "p90Milliseconds", "p99Milliseconds", "p999Milliseconds", "maxMilliseconds",
        "meanMilliseconds",
    ]

    final class Pipeline {
        let bus: BusFixture
        let pids: [String: Int32]
        /// snapshot-writer's metrics listener, `HOST:PORT`.
        let snapshotWriterMetrics: String

        init() throws {
            bus = try BusFixture()
            let quiet = ["WIDGETBUS_LOG_LEVEL": "warning"]
            let intentHandler = try bus.start(.intentHandler, extraEnvironment: quiet)
            let metricsIngest = try bus.start(.metricsIngest, extraEnvironment: quiet)  // Stress Monitor's measurements
            let timelineService = try bus.start(.timelineService, extraEnvironment: quiet)
            pids = ["intent-handler": intentHandler.pid, "metrics-ingest": metricsIngest.pid, "timeline-service": timelineService.pid]
            // At its own log level: the fixture knows it is ready from its "ready" line.
            let metrics = try #require(URL(string: try bus.startServingMetrics(.snapshotWriter)))
            snapshotWriterMetrics = "\(metrics.host ?? ""):\(metrics.port ?? 0)"
        }

        /// Runs the tool with `arguments`, the given service pids and no local runner.
        func loadtest(_ arguments: [String]) throws -> CommandResult {
            var environment = bus.environment
            environment["WIDGETBUS_LOCAL_DIR"] = nil
            let pidArguments = pids.sorted { $0.key < $1.key }.flatMap { ["--pid", "\($0.key)=\($0.value)"] }
            return try runCommand(
                BusFixture.productsDirectory.appendingPathComponent("widgetbus-loadtest"), arguments + pidArguments,
                environment: environment)
        }
    }

    @Test("an open-loop run writes the report's fields, the service CPU and the SVG")
    func openLoopReport() throws {
        let pipeline = try Pipeline()
        let json = pipeline.bus.root.appendingPathComponent("lt.json"), svg = pipeline.bus.root.appendingPathComponent("lt.svg")
        let run = try pipeline.loadtest([
            "--rate", "200", "--duration", "2", "--users", "50", "--grace", "3", "--seed", "7", "--json", json.path, "--svg", svg.path,
            "--snapshot-writer-metrics", pipeline.snapshotWriterMetrics,
        ])
        #expect(run.status == 0, "exit \(run.status)\n\(run.stdout)\n\(run.stderr)\n\(pipeline.bus.allLogs)")

        let report = try Self.object(try Data(contentsOf: json))
        #expect(Self.reportFields.isSubset(of: Set(report.keys)), "report fields: \(report.keys.sorted())")
        let configuration = try Self.object(report["configuration"])
        #expect(Self.configurationFields.isSubset(of: Set(configuration.keys)))
        #expect(configuration["mode"] as? String == "open" && configuration["offeredRate"] as? Double == 200)
        #expect(configuration["seed"] as? Int == 7)

        let steps = try #require(report["steps"] as? [[String: Any]])
        try #require(steps.count == 1)
        let step = steps[0]
        #expect(Self.stepFields.isSubset(of: Set(step.keys)), "step fields: \(step.keys.sorted())")
        let sent = try #require(step["sent"] as? Int)
        #expect((350...400).contains(sent), "200/s for 2 s schedules 400 intents, got \(sent)")
        for latency in ["roundTrip", "intentToTimeline", "sendLag"] {
            #expect(Self.latencyFields == Set(try Self.object(step[latency]).keys), "\(latency) fields")
        }
        let timelines = try Self.object(step["timelines"])
        #expect(timelines["missing"] as? Int == 0, "every committed intent's timeline arrived: \(timelines)")
        #expect((timelines["delivered"] as? Int ?? 0) > 0)
        #expect(try Self.object(step["intentToTimeline"])["count"] as? Int == timelines["delivered"] as? Int)

        // The CPU time of the processes given by --pid, over the step.
        let cpu = try Self.object(step["serviceCPU"])
        #expect(Set(cpu.keys) == Set(pipeline.pids.keys))
        for (service, usage) in cpu {
            let usage = try Self.object(usage)
            let seconds = try #require(usage["seconds"] as? Double), perIntent = try #require(usage["millisecondsPerIntent"] as? Double)
            // /proc counts in clock ticks (10 ms): the services on the intent → timeline path use more.
            #expect(service == "metrics-ingest" ? seconds >= 0 : seconds > 0, "\(service) used CPU while it served the step")
            #expect(abs(perIntent - seconds * 1_000 / Double(sent)) < 1e-6)
        }
        #expect(run.stdout.contains("service CPU, ms per intent: intent-handler"))

        // snapshot-writer's own lag histogram, read once its files caught up before the step and
        // after it: the files the step changed, not the set-up's — an intent changes the files of
        // its app's kinds at most (three for Diet).
        let lag = try Self.object(step["snapshotFileLag"])
        #expect(lag["caughtUp"] as? Bool == true, "\(lag)")
        let files = try #require(lag["files"] as? Int)
        #expect(files > 0 && files <= 3 * sent, "files written over the step: \(files) for \(sent) intents")
        #expect(lag["withinOneSecond"] as? Double != nil, "files were written: \(lag)")
        #expect(run.stdout.contains("snapshot files: \(files) written"))

        let chart = try String(contentsOf: svg, encoding: .utf8)
        #expect(chart.hasPrefix("<svg") && chart.contains("</svg>"), "an SVG document")
    }

    @Test("a rate search reports each step and the highest passing rate")
    func rateSearchReport() throws {
        let pipeline = try Pipeline()
        let json = pipeline.bus.root.appendingPathComponent("search.json")
        // A target no loopback run misses, so the search climbs from 100/s to its ceiling, 150/s.
        let run = try pipeline.loadtest([
            "--search", "--search-start", "100", "--search-max", "150", "--search-resolution", "50", "--target-p99", "2000",
            "--duration", "1", "--grace", "2", "--users", "50", "--json", json.path,
        ])
        #expect(run.status == 0, "exit \(run.status)\n\(run.stdout)\n\(run.stderr)")
        let report = try Self.object(try Data(contentsOf: json))
        #expect(Self.reportFields.isSubset(of: Set(report.keys)))
        #expect(try Self.object(report["configuration"])["mode"] as? String == "search")
        let search = try Self.object(report["search"])
        #expect(search["targetP99Milliseconds"] as? Double == 2000)
        #expect(search["highestPassingRate"] as? Double == 150, "\(search)\n\(run.stdout)")
        let steps = try #require(report["steps"] as? [[String: Any]])
        #expect(steps.map { $0["offeredRate"] as? Double } == [100, 150])
        for step in steps {
            #expect(step["passed"] as? Bool == true)
            #expect(Self.stepFields.isSubset(of: Set(step.keys)))
        }
    }

    private static func object(_ value: Any?) throws -> [String: Any] {
        if let data = value as? Data { return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any]) }
        return try #require(value as? [String: Any])
    }
}
