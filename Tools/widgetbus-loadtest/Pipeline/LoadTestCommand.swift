import ArgumentParser
import CommandLineText
import Foundation
import ServiceSupport
import Synchronization
import WidgetBusProtocol
import ZeroMQ

/// `widgetbus-loadtest [pipeline]`: simulated users tap the five widgets; measures the intent
/// round trip and the delay from sending an intent to the matching timeline on timeline-service's
/// publisher.
struct LoadTestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pipeline",
        abstract: "Load-test the timeline pipeline: intent round trip and intent-to-timeline latency under a mix of widget intents.",
        discussion: """
            Simulated users (lt-<run>-<n>) first get state in all five apps (set-up, not measured), then send \
            valid, state-changing messages picked by --mix: tension (RecordTension, MarkInterventionDone for an \
            open suggestion, ResetWidget), diet (QuickLogFood; every 8th UpdateNutrition), tenx (ToggleFocus \
            of today's focuses), stress (RecordStressMeasurement; 10 % UpdateWidget), jitter (StartDrink, then \
            CompleteDrink; 30 % UpdateJitterScores). Each user has one request in flight at a time.

            Open loop (--rate): intents leave on a fixed schedule whatever the replies, and latencies are \
            measured from each intent's scheduled time, so a server that falls behind is charged for its queue. \
            Closed loop (--in-flight): that many requests outstanding; latencies from the actual send.

            Intent → timeline: an intent counts as delivered when a TimelineChanged of the same user's app \
            arrives with stateVersion at or above the version its reply committed. timeline-service coalesces \
            a burst of changes to one state into one timeline carrying the latest intent's causedBy, so \
            matching causedBy alone would call coalesced intents lost; they are counted apart as "coalesced". \
            Only the first kind of each app is watched (DietProgressWidget, TenXHomeWidget, …): it is \
            published first. Timelines still missing after --grace seconds are reported.

            --search steps the open-loop rate (×1.5 while passing, then bisection) to find the highest rate \
            whose intent → timeline p99 stays under --target-p99 with nothing missing, no errors and at least \
            97 % of the offered rate achieved.

            On a terminal, a progress line on stderr shows the step so far: rate, round-trip p99, timelines, \
            errors. Each step reports the CPU time of every service process it knows: those given by --pid, \
            and those the local runner started (its pid files under WIDGETBUS_LOCAL_DIR, which \
            `eval "$(deploy/local/widgetbus env)"` sets).

            Refuses endpoints other than loopback or compose service names (one-label hosts such as \
            intent-handler) unless --allow-remote is given.
            """ + "\n\n" + EnvironmentSetting.helpText([BusEndpoint.intents.setting, BusEndpoint.timelineEvents.setting])
    )

    @Option(help: "Open loop: intents per second.")
    var rate: Double?

    @Option(help: "Open loop: after --duration, go on at this rate without a pause, and report how soon intent → timeline p99 is back under --target-p99 (recovery after overload).")
    var thenRate: Double?

    @Option(help: "Seconds of the --then-rate phase.")
    var thenDuration: Double = 10

    @Option(help: "Closed loop: requests kept in flight (at most --users).")
    var inFlight: Int?

    @Option(help: "Seconds of load (of each step with --search).")
    var duration: Double = 10

    @Option(help: "Simulated users.")
    var users: Int = 1_000

    @Option(help: "Weights of the widgets: \(LoadWidget.allCases.map(\.rawValue).joined(separator: ", ")).")
    var mix: String = LoadMix.default.description

    @Option(help: "Seconds to wait at the end of a step for timelines still on their way.")
    var grace: Double = 3

    @Option(help: "Milliseconds after which an unanswered intent counts as timed out.")
    var timeout: Int = 5_000

    @Flag(help: "Search for the highest open-loop rate that meets --target-p99.")
    var search = false

    @Option(help: "Search: the first rate tried.")
    var searchStart: Double = 500

    @Option(help: "Search: the highest rate tried.")
    var searchMax: Double = 50_000

    @Option(help: "Search: stop when the highest passing and lowest failing rates are this close (intents/s).")
    var searchResolution: Double = 100

    @Option(help: "Search: the intent → timeline p99 to stay under, in milliseconds.")
    var targetP99: Double = 10

    @Option(help: "Seed of the random choices, to repeat a run's sequence of intents.")
    var seed: UInt64?

    @Option(help: "Write the results as JSON to this file.")
    var json: String?

    @Option(help: "Draw latency by percentile and over time (and the rate search) as SVG to this file.")
    var svg: String?

    @Flag(help: "Allow endpoints on other hosts than loopback or compose service names.")
    var allowRemote = false

    @Option(name: .customLong("pid"), help: "A service process to report the CPU time of, as NAME=PID (repeatable).")
    var pids: [String] = []

    @Option(help: "snapshot-writer's metrics listener, HOST:PORT, to report how far the snapshot files lagged (default: the local runner's, under WIDGETBUS_LOCAL_DIR).")
    var snapshotWriterMetrics: String?

    func validate() throws {
        if search {
            guard rate == nil, inFlight == nil else { throw ValidationError("--search chooses the rates: leave out --rate and --in-flight") }
            guard searchStart > 0, searchMax >= searchStart else { throw ValidationError("need 0 < --search-start ≤ --search-max") }
            guard searchResolution > 0, targetP99 > 0 else { throw ValidationError("--search-resolution and --target-p99 must be above 0") }
        } else {
            guard (rate == nil) != (inFlight == nil) else {
                throw ValidationError("give either --rate (open loop) or --in-flight (closed loop), or --search")
            }
        }
        if let rate { guard rate > 0, rate <= 1_000_000 else { throw ValidationError("--rate must be in (0, 1000000]") } }
        if let thenRate {
            guard rate != nil else { throw ValidationError("--then-rate follows an open loop: give --rate too") }
            guard thenRate > 0, thenRate <= 1_000_000, thenDuration > 0, thenDuration <= 86_400 else {
                throw ValidationError("--then-rate must be in (0, 1000000] and --then-duration in (0, 86400] seconds")
            }
        }
        guard (1...1_000_000).contains(users) else { throw ValidationError("--users must be 1…1000000") }
        if let inFlight { guard (1...users).contains(inFlight) else { throw ValidationError("--in-flight must be 1…--users (one request per user)") } }
        guard duration > 0, duration <= 86_400 else { throw ValidationError("--duration must be in (0, 86400] seconds") }
        guard grace >= 0, timeout >= 1 else { throw ValidationError("--grace must be ≥ 0 and --timeout ≥ 1") }
        do {
            _ = try LoadMix(parsing: mix)
            _ = try ServiceProcesses(arguments: pids, localDirectory: nil)
        } catch {
            throw ValidationError("\(error)")
        }
    }

    func run() throws {
        let environment = ProcessInfo.processInfo.environment
        let intents = BusEndpoint.intents.resolve(in: environment)
        let timelineEvents = BusEndpoint.timelineEvents.resolve(in: environment)
        if !allowRemote {
            for endpoint in [intents, timelineEvents] {
                if let refusal = LoadTestTargetPolicy.refusal(of: endpoint) {
                    Console.error(
                        "refusing to load-test: \(refusal). Load tests run against this machine or a compose network; "
                            + "pass --allow-remote to load another deployment on purpose.")
                    throw ExitCode.validationFailure
                }
            }
        }
        let plan = LoadTestPlan(
            shape: search ? nil : rate.map { .open(rate: $0) } ?? inFlight.map { .closed(inFlight: $0) },
            duration: .milliseconds(Int64(duration * 1_000)),
            recovery: thenRate.map {
                LoadTestPlan.Recovery(rate: $0, duration: .milliseconds(Int64(thenDuration * 1_000)), targetP99: targetP99)
            },
            users: users, mix: try LoadMix(parsing: mix),
            grace: .milliseconds(Int64(grace * 1_000)), timeout: .milliseconds(timeout),
            search: search ? .init(start: searchStart, max: searchMax, resolution: searchResolution, targetP99: targetP99) : nil,
            seed: seed ?? UInt64.random(in: 0...UInt64.max), intentsEndpoint: intents, timelineEventsEndpoint: timelineEvents,
            services: try ServiceProcesses(arguments: pids, localDirectory: environment["WIDGETBUS_LOCAL_DIR"]),
            snapshotWriter: SnapshotWriterMetrics(address: snapshotWriterMetrics, localDirectory: environment["WIDGETBUS_LOCAL_DIR"]))

        let context = try ZMQContext()
        let runID = String(UUID().uuidString.prefix(6)).lowercased()
        let listener = TimelineListener(endpoint: timelineEvents, userPrefix: "lt-\(runID)-")
        let outcome = Result {
            try runOnDedicatedThread(name: "loadtest-intents") {
                try LoadTestSession(plan: plan, context: context, listener: listener, runID: runID).execute()
            }
        }
        listener.stop()
        context.terminate()  // the driver's socket is closed by now
        let (report, detail) = try outcome.get()

        if let json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            encoder.dateEncodingStrategy = .iso8601
            try encoder.encode(report).write(to: URL(fileURLWithPath: json))
            Console.line("results: \(json)")
        }
        if let svg {
            let chart = LoadTestChart.svg(report: report, detail: detail, title: plan.title, subtitle: plan.subtitle(startedAt: report.startedAt))
            try Data(chart.utf8).write(to: URL(fileURLWithPath: svg))
            Console.line("chart: \(svg)")
        }
        if !search, let step = report.steps.first, step.errorCount + step.timeouts + step.timelines.missing > 0 {
            throw ExitCode(1)
        }
    }
}

/// Everything a run needs, decided before any thread starts.
struct LoadTestPlan: Sendable {
    struct Search: Sendable {
        var start: Double
        var max: Double
        var resolution: Double
        var targetP99: Double
    }

    /// An open loop's second phase, at another rate, right after the first.
    struct Recovery: Sendable {
        var rate: Double
        var duration: Duration
        /// The intent → timeline p99 the load is back under once recovered, in milliseconds.
        var targetP99: Double
    }

    var shape: LoadShape?
    var duration: Duration
    var recovery: Recovery?
    var users: Int
    var mix: LoadMix
    var grace: Duration
    var timeout: Duration
    var search: Search?
    var seed: UInt64
    var intentsEndpoint: String
    var timelineEventsEndpoint: String
    var services: ServiceProcesses
    /// Where the snapshot files' lag is read, when known.
    var snapshotWriter: SnapshotWriterMetrics?

    var title: String {
        switch (shape, search) {
        case (_, let search?): String(format: "WidgetBus load test: rate search for intent → timeline p99 < %g ms", search.targetP99)
        case (.open(let rate)?, nil):
            String(format: "WidgetBus load test: %.0f intents/s, open loop, %.0f s", rate, duration.asSeconds)
                + (recovery.map { String(format: ", then %.0f/s for %.0f s", $0.rate, $0.duration.asSeconds) } ?? "")
        case (.closed(let inFlight)?, nil): String(format: "WidgetBus load test: %d in flight, closed loop, %.0f s", inFlight, duration.asSeconds)
        case (nil, nil): "WidgetBus load test"
        }
    }

    func subtitle(startedAt: Date) -> String {
        let steps = search == nil ? "" : String(format: "%.0f s per step · ", duration.asSeconds)
        return steps + "\(users) users · mix \(mix.summary) · \(ProcessInfo.processInfo.activeProcessorCount) vCPU · "
            + startedAt.formatted(.iso8601)
    }
}

/// One run on the intents thread: set-up, then the step(s), each followed by the grace period
/// and the matching of intents to timelines.
struct LoadTestSession {
    let plan: LoadTestPlan
    let context: ZMQContext
    let listener: TimelineListener
    let runID: String

    /// The report, and the step to draw in detail.
    func execute() throws -> (LoadTestReport, StepReport?) {
        let startedAt = Date()
        let driver = try IntentDriver(
            context: context, endpoint: plan.intentsEndpoint, runID: runID, userPrefix: "lt-\(runID)-", users: plan.users,
            mix: plan.mix, timeout: plan.timeout, seed: plan.seed)

        Console.line("setting up \(plan.users) users (\(LoadWorkload.setupCount) messages each) at \(plan.intentsEndpoint)…")
        let setupStart = ContinuousClock.now
        let expected = try driver.setUp(window: 64)
        if !waitForTimelines(expected, within: max(plan.grace, .seconds(10))) {
            if let failure = listener.failure { throw LoadTestError(failure) }
            if listener.count == 0 {
                throw LoadTestError(
                    "no timeline events from timeline-service at \(plan.timelineEventsEndpoint) within 10 s of the set-up: is it running?")
            }
            Console.error("warning: not every set-up timeline arrived; measuring anyway")
        }
        let setupSeconds = (ContinuousClock.now - setupStart).asSeconds
        Console.line(String(format: "set-up done in %.1f s; mix %@", setupSeconds, plan.mix.summary))

        var steps: [StepReport] = []
        var detail: StepReport?
        var searchReport: LoadTestReport.Search?
        if let search = plan.search {
            searchReport = try runSearch(search, driver: driver, steps: &steps)
            detail = steps.last { $0.passed == true && $0.offeredRate == searchReport?.highestPassingRate }
        } else if let shape = plan.shape {
            switch shape {
            case .open(let rate):
                Console.line(
                    String(format: "open loop: %.0f intents/s for %.0f s", rate, plan.duration.asSeconds)
                        + (plan.recovery.map { String(format: ", then %.0f/s for %.0f s", $0.rate, $0.duration.asSeconds) } ?? "") + "…")
            case .closed(let inFlight): Console.line(String(format: "closed loop: %d in flight for %.0f s…", inFlight, plan.duration.asSeconds))
            }
            let step = try measure(shape, then: plan.recovery, driver: driver, number: 1)
            LoadTestTable.printStep(step, mixSummary: plan.mix.summary, grace: plan.grace.asSeconds)
            steps.append(step)
            detail = step
        }

        var mode = "search"
        var offered: Double?
        var inFlight: Int?
        switch plan.shape {
        case .open(let rate)?:
            mode = "open"
            offered = rate
        case .closed(let window)?:
            mode = "closed"
            inFlight = window
        case nil: break
        }
        let report = LoadTestReport(
            startedAt: startedAt,
            configuration: .init(
                mode: mode, offeredRate: offered, inFlight: inFlight, durationSeconds: plan.duration.asSeconds, users: plan.users,
                mix: plan.mix.shares, graceSeconds: plan.grace.asSeconds, timeoutMilliseconds: Int(plan.timeout.asMilliseconds),
                seed: plan.seed, intentsEndpoint: plan.intentsEndpoint, timelineEventsEndpoint: plan.timelineEventsEndpoint),
            setupMessages: plan.users * LoadWorkload.setupCount, setupSeconds: setupSeconds, steps: steps, search: searchReport)
        return (report, detail)
    }

    /// One step: load, then the grace period, then the matching.
    private func measure(_ shape: LoadShape, then recovery: LoadTestPlan.Recovery? = nil, driver: IntentDriver, number: Int) throws -> StepReport {
        let lagBefore = plan.snapshotWriter?.caughtUpLag()
        let cpuBefore = plan.services.cpuSeconds()
        var line = LoadTestProgressLine(label: "step \(number):")
        let timelinesBefore = listener.count
        let records = try driver.run(shape, for: plan.duration, then: recovery, step: number) { progress in
            line.show(progress, timelines: listener.count - timelinesBefore)
        }
        line.finish()
        var expected: [UserApp: UInt64] = [:]
        for record in records.records {
            if case .changed(let version) = record.outcome { expected[record.key] = max(expected[record.key, default: 0], version) }
        }
        _ = waitForTimelines(expected, within: plan.grace)
        if let failure = listener.failure { throw LoadTestError(failure) }
        var report = LoadTestAnalysis.report(
            records, arrivals: ArrivalIndex(listener.arrivals), recovery: recovery)
        if !plan.services.pids.isEmpty {
            report.serviceCPU = ServiceProcesses.usage(from: cpuBefore, to: plan.services.cpuSeconds(), intents: records.records.count)
        }
        // After the CPU: the wait for the files to catch up is not the step's.
        if let lagBefore, let lagAfter = plan.snapshotWriter?.caughtUpLag() {
            report.snapshotFileLag = SnapshotFileLag(
                from: lagBefore.buckets, to: lagAfter.buckets, caughtUp: lagBefore.caughtUp && lagAfter.caughtUp,
                catchUpSeconds: lagAfter.seconds)
        }
        return report
    }

    /// Steps the open-loop rate up by half while the target is met, then bisects between the
    /// highest passing and the lowest failing rate down to the resolution.
    private func runSearch(_ search: LoadTestPlan.Search, driver: IntentDriver, steps: inout [StepReport]) throws -> LoadTestReport.Search {
        var passing: Double?
        var failing: Double?
        var rate = search.start
        Console.line(String(format: "rate search: intent → timeline p99 < %g ms, %.0f s per step", search.targetP99, plan.duration.asSeconds))
        LoadTestTable.searchHeader()
        for number in 1...30 {
            var step = try measure(.open(rate: rate), driver: driver, number: number)
            let passed = step.intentToTimeline.p99Milliseconds < search.targetP99 && step.intentToTimeline.count > 0
                && step.timelines.missing == 0 && step.errorCount == 0 && step.timeouts == 0 && step.achievedRate >= 0.97 * rate
            step.passed = passed
            steps.append(step)
            LoadTestTable.searchLine(step)
            if passed { passing = max(passing ?? 0, rate) } else { failing = min(failing ?? .infinity, rate) }

            var next: Double
            switch (passing, failing) {
            case (let low?, let high?):
                if high - low <= search.resolution { return result(search, passing, failing) }
                next = (low + high) / 2
            case (_?, nil):
                if rate >= search.max { return result(search, passing, failing) }
                next = min(rate * 1.5, search.max)
            default:
                if rate <= search.resolution { return result(search, passing, failing) }
                next = rate / 2
            }
            next = max(10, (next / 10).rounded() * 10)  // round figures
            if steps.contains(where: { $0.offeredRate == next }) { return result(search, passing, failing) }
            rate = next
            Thread.sleep(forTimeInterval: 1)  // let the services settle between steps
        }
        return result(search, passing, failing)
    }

    private func result(_ search: LoadTestPlan.Search, _ passing: Double?, _ failing: Double?) -> LoadTestReport.Search {
        let report = LoadTestReport.Search(
            targetP99Milliseconds: search.targetP99, highestPassingRate: passing, lowestFailingRate: failing,
            resolution: search.resolution)
        if let passing {
            Console.line(String(format: "highest rate with intent → timeline p99 < %g ms: %.0f intents/s", search.targetP99, passing)
                + (failing.map { String(format: " (%.0f/s failed)", $0) } ?? ""))
        } else {
            Console.line(String(format: "no rate met intent → timeline p99 < %g ms", search.targetP99))
        }
        return report
    }

    /// Waits until timelines at the given versions have arrived, or `limit` passes.
    private func waitForTimelines(_ expected: [UserApp: UInt64], within limit: Duration) -> Bool {
        let deadline = ContinuousClock.now + limit
        while !listener.hasArrived(expected) {
            guard ContinuousClock.now < deadline, listener.failure == nil else { return false }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return true
    }
}

/// Runs `body` on a new thread and waits for its result, so that blocking socket work never runs
/// on the Swift concurrency pool.
func runOnDedicatedThread<T: Sendable>(name: String, _ body: @escaping @Sendable () throws -> T) throws -> T {
    let result = Mutex<Result<T, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        let outcome = Result { try body() }
        result.withLock { $0 = outcome }
        done.signal()
    }
    thread.name = name
    thread.stackSize = 8 << 20
    thread.start()
    done.wait()
    return try result.withLock { $0! }.get()
}
