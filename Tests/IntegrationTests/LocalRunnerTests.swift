import AsyncHTTPClient
import Foundation
import NIOHTTP1
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `deploy/local/widgetbus` brings the whole topology up as plain processes on free loopback
/// ports (endpoints and app-gateway's address overridden through the environment), a short
/// scenario with all five widgets runs through widgetctl against it, app-gateway answers over
/// HTTPS with the development keys the runner made, and `down` leaves nothing running: no process,
/// no port.
@Suite("Local runner", .serialized, .blockingThreads)
struct LocalRunnerTests {
    static let runner = DeploymentConfigurationTests.deploy.appendingPathComponent("local/widgetbus")

    /// A private topology: its own data directory and a free port for every endpoint of topology.env
    /// and for app-gateway's API.
    final class Topology {
        let directory: URL
        let environment: [String: String]
        let ports: [Int]
        let gatewayPort: Int

        /// - Parameters:
        ///   - binDirectory: the executables it runs; the build's products by default.
        ///   - extraEnvironment: added to the environment of every command.
        init(binDirectory: URL = BusFixture.productsDirectory, extraEnvironment: [String: String] = [:]) throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("widgetbus-local-\(UUID().uuidString)")
            var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("WIDGETBUS_") }
            var ports: [Int] = []
            for (variable, value) in try DeploymentConfigurationTests.topology() where value.hasPrefix("tcp://") {
                let port = try freeLoopbackPort()
                ports.append(port)
                environment[variable] = "tcp://127.0.0.1:\(port)"
            }
            gatewayPort = try freeLoopbackPort()
            ports.append(gatewayPort)
            environment["WIDGETBUS_GATEWAY_LISTEN"] = "127.0.0.1:\(gatewayPort)"
            environment["WIDGETBUS_LOCAL_DIR"] = directory.path
            environment["WIDGETBUS_BIN_DIR"] = binDirectory.path
            environment["WIDGETBUS_START_TIMEOUT"] = "60"
            environment["WIDGETBUS_HTTP_PORT_BASE"] = "auto"
            self.environment = environment.merging(extraEnvironment) { $1 }
            self.ports = ports
        }

        deinit {
            _ = try? widgetbus("down")  // whatever a failed test left running
            try? FileManager.default.removeItem(at: directory)
        }

        func widgetbus(_ arguments: String...) throws -> CommandResult {
            try runCommand(LocalRunnerTests.runner, arguments, environment: environment)
        }

        /// The pids in the runner's pid files.
        var pids: [Int32] {
            let run = directory.appendingPathComponent("run")
            let files = (try? FileManager.default.contentsOfDirectory(atPath: run.path)) ?? []
            return files.filter { $0.hasSuffix(".pid") }.compactMap { file in
                (try? String(contentsOf: run.appendingPathComponent(file), encoding: .utf8))?
                    .split(separator: "\n").first.flatMap { Int32($0) }
            }
        }
    }

    @Test("up, a scenario with all five widgets, status, logs, down: nothing left running")
    func upScenarioDown() throws {
        let topology = try Topology()
        let up = try topology.widgetbus("up")
        try #require(up.status == 0, "widgetbus up failed (\(up.status)):\n\(up.stdout)\n\(up.stderr)")
        let services = try DeploymentConfigurationTests.serviceExecutables()
        for service in services {
            #expect(up.stdout.contains("\(service) ready"), "\(service) not reported ready:\n\(up.stdout)")
        }
        let pids = topology.pids
        #expect(pids.count == services.count)

        // A second `up` joins the running topology instead of starting another.
        let again = try topology.widgetbus("up")
        #expect(again.status == 0 && again.stdout.contains("already running"), "\(again.stdout) \(again.stderr)")
        #expect(Set(topology.pids) == Set(pids))

        let status = try topology.widgetbus("status")
        #expect(status.status == 0, "status: \(status.stdout) \(status.stderr)")
        for service in services {
            let line = status.lines.first { $0.hasPrefix(service + " ") } ?? ""
            #expect(line.contains("answers") || line.contains("connected") || line.contains("serving"), "status of \(service): \(line)")
        }
        let gatewayLine = status.lines.first { $0.hasPrefix("app-gateway ") } ?? ""
        #expect(gatewayLine.contains("serving") && gatewayLine.contains("https://127.0.0.1:\(topology.gatewayPort)"), "\(gatewayLine)")
        #expect(up.stdout.contains("API https://127.0.0.1:\(topology.gatewayPort)"), "the API's URL in the readiness line: \(up.stdout)")

        // widgetctl configured the way a user would: eval "$(widgetbus env)".
        let exported = try topology.widgetbus("env")
        let environment = Self.parseExports(exported.stdout, into: topology.environment)
        #expect(environment["WIDGETBUS_INTENTS"] == topology.environment["WIDGETBUS_INTENTS"])
        let scenario = Scenario(environment: environment)
        try scenario.run()
        try Self.throughTheGateway(topology)

        // Every service serves its metrics where `widgetbus metrics` says, showing its part of the scenario.
        let metrics = try topology.widgetbus("metrics")
        let didItsPart = [
            "intent-handler": "widgetbus_bus_events_published_total", "timeline-service": "widgetbus_timelines_published_total",
            "snapshot-writer": "widgetbus_snapshot_files_written_total", "metrics-ingest": "widgetbus_bus_requests_total",  // the runner's pings: the scenario pushes no sample
            "sync-agent": "widgetbus_sync_passes_total", "push-gateway": "widgetbus_replica_entries",  // the widgets it follows
            "app-gateway": "widgetbus_replica_entries",  // the timelines it follows for 304s and event streams
        ]
        #expect(Set(didItsPart.keys) == Set(services))
        for service in services {
            let url = try #require(
                metrics.lines.first { $0.hasPrefix(service + " ") }?.split(separator: " ").last.map(String.init),
                "no metrics for \(service): \(metrics.stdout) \(metrics.stderr)")
            let metric = try #require(didItsPart[service])
            #expect((try PrometheusText.scrape(url).value(metric) ?? 0) > 0, "\(service) at \(url): \(metric)")
        }

        let logs = try topology.widgetbus("logs", "intent-handler")
        #expect(logs.status == 0 && logs.stdout.contains("intent-handler ready"), "logs: \(logs.stdout) \(logs.stderr)")

        let down = try topology.widgetbus("down")
        #expect(down.status == 0, "down: \(down.stdout) \(down.stderr)")
        for pid in pids {
            #expect(!Self.isRunning(pid), "pid \(pid) still running after down")
        }
        for port in topology.ports {
            #expect(Self.isFree(port), "port \(port) still in use after down")
        }
        #expect(topology.pids.isEmpty, "pid files left behind")
        let after = try topology.widgetbus("status")
        #expect(after.status == 3, "status after down should report nothing running: \(after.stdout)")
    }

    @Test("a bin directory of links to the multi-call binary, as the image has, runs the topology")
    func linksToTheMultiCallBinary() throws {
        let links = try MultiCallBinaryTests.links()
        defer { try? FileManager.default.removeItem(at: links) }
        let topology = try Topology(binDirectory: links)
        let up = try topology.widgetbus("up")
        try #require(up.status == 0, "widgetbus up failed (\(up.status)):\n\(up.stdout)\n\(up.stderr)")
        let status = try topology.widgetbus("status")
        #expect(status.status == 0, "every service answers: \(status.stdout) \(status.stderr)")
        #expect(topology.pids.count == (try DeploymentConfigurationTests.serviceExecutables()).count)
        let down = try topology.widgetbus("down")
        #expect(down.status == 0 && topology.pids.isEmpty, "down: \(down.stdout) \(down.stderr)")
    }

    @Test("with CURVE keys every service starts with its own, and the topology answers only with keys")
    func withCurveKeys() throws {
        let keysRoot = FileManager.default.temporaryDirectory.appendingPathComponent("curve-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: keysRoot) }
        let keys = try CurveKeys(under: keysRoot)
        let topology = try Topology(extraEnvironment: [
            "WIDGETBUS_CURVE_KEYS_DIR": keys.publicDirectory.path, "WIDGETBUS_CURVE_SECRETS_DIR": keysRoot.appendingPathComponent("secret").path,
        ])
        let up = try topology.widgetbus("up")
        try #require(up.status == 0, "widgetbus up failed (\(up.status)):\n\(up.stdout)\n\(up.stderr)")
        defer { _ = try? topology.widgetbus("down") }
        let status = try topology.widgetbus("status")
        #expect(status.status == 0, "every service answers the operator: \(status.stdout) \(status.stderr)")

        // The scenario of all five widgets, as the operator: every service follows the others
        // over CURVE (Stress Monitor's timeline needs metrics-ingest's aggregates, too).
        let environment = Self.parseExports(try topology.widgetbus("env").stdout, into: topology.environment)
        try Scenario(environment: environment).run()
        // app-gateway with its own key: intents, timelines and samples are let in.
        try Self.throughTheGateway(topology)
        let widgetctl = BusFixture.productsDirectory.appendingPathComponent("widgetctl")
        var plain = environment
        plain["WIDGETBUS_CURVE_SECRET_KEY_FILE"] = ""
        plain["WIDGETBUS_CURVE_KEYS_DIR"] = ""
        let refused = try runCommand(
            widgetctl, ["send", "ResetWidgetIntent", "--user", "op", "--timeout", "300", "--attempts", "1"], environment: plain)
        #expect(refused.status == 2, "no keys, no answer")
    }

    // MARK: - app-gateway

    /// app-gateway as a phone reaches it, trusting the development certificate the runner made:
    /// /healthz, a tap and the timeline at its version, and a stress sample that comes back on the
    /// Stress Monitor timeline through metrics-ingest and timeline-service — each bus endpoint the
    /// gateway sends to.
    static func throughTheGateway(_ topology: Topology) throws {
        let keys = GatewayDevKeys(in: topology.directory.appendingPathComponent("gateway"))
        let client = try keys.client()
        defer { try? client.syncShutdown() }
        let base = "https://localhost:\(topology.gatewayPort)"
        let health = try GatewayDevKeys.request(client, .GET, base + "/healthz")
        #expect(health.status == 200 && health.body.contains("ok"), "/healthz: \(health)")

        let token = try keys.token("local-runner")
        let tap = try GatewayDevKeys.request(
            client, .POST, base + "/v1/intents", token: token, body: #"{"type":"RecordTensionIntent","body":{"level":7}}"#)
        try #require(tap.status == 200, "the tap: \(tap)")
        let reply = try #require(Scenario.json(tap.body), "\(tap.body)")
        #expect(Scenario.string(reply, "body", "user") == "\(GatewayDevKeys.alias):local-runner", "the token's user: \(tap.body)")
        let version = try #require(Scenario.number(reply, "body", "version").map { Int($0) }, "\(tap.body)")
        let timeline = try GatewayDevKeys.request(
            client, .GET, base + "/v1/widgets/TensionCheckWidget/timeline?minimumVersion=\(version)", token: token)
        let entries = Scenario.json(timeline.body)?["entries"] as? [[String: Any]]
        let phase = entries?.first?["phase"] as? String
        #expect(timeline.status == 200 && phase == "suggestion", "the timeline at version \(version): \(timeline)")

        let takenAt = ISO8601DateFormatter().string(from: Date().addingTimeInterval(-60))
        let samples = try GatewayDevKeys.request(
            client, .POST, base + "/v1/samples", token: token,
            body: #"{"samples":[{"kind":"stress","score":61,"source":"watch","takenAt":"\#(takenAt)"}]}"#)
        #expect(samples.status == 202, "samples: \(samples)")
        var last = ""
        let deadline = Date().addingTimeInterval(15)
        var shown = false
        while !shown && Date() < deadline {
            let stress = try GatewayDevKeys.request(client, .GET, base + "/v1/widgets/StressMonitorWidget/timeline", token: token)
            last = stress.body
            shown = Scenario.number(((Scenario.json(stress.body)?["entries"] as? [[String: Any]])?.first) ?? [:], "stressLevel") == 61
            if !shown { usleep(200_000) }
        }
        #expect(shown, "the sample on the Stress Monitor timeline; last: \(last)")
    }

    // MARK: - The scenario

    /// One short step per widget, each checked on its timeline, plus a snapshot file and a sync pass.
    struct Scenario {
        let environment: [String: String]
        let user = "local-runner"

        func run() throws {
            // Tension Check: a high level opens a suggestion; done marks it.
            var reply = try send("RecordTensionIntent", #"{"level":7}"#)
            let checkIn = try #require(Self.string(reply, "body", "state", "phase", "checkInId"))
            try expectTimeline("TensionCheckWidget", atLeast: reply) { entry in entry["phase"] as? String == "suggestion" }
            reply = try send("MarkInterventionDoneIntent", #"{"checkInId":"\#(checkIn)"}"#)
            // "completed" for 5 s, then the picker: either shows the new version.
            try expectTimeline("TensionCheckWidget", atLeast: reply) { entry in ["completed", "picker"].contains(entry["phase"] as? String) }

            // Diet: goals and a favourite food, then a quick log.
            try send("UpdateGoals", #"{"calorieTarget":2000}"#)
            try send(
                "UpdateRecentFoods",
                #"{"foods":[{"id":"oats","name":"Oatmeal","calories":150,"protein":5,"carbs":27,"fat":3,"defaultQuantity":1,"unit":"bowl"}]}"#)
            reply = try send("QuickLogFoodIntent", #"{"foodId":"oats"}"#)
            #expect(Self.number(reply, "body", "state", "nutrition", "calories") == 150)
            try expectTimeline("DietProgressWidget", atLeast: reply) { _ in true }

            // TenX: a goal, today's three focuses, one done.
            reply = try send("CreateGoal", #"{"title":"Ship it"}"#)
            let goals = try #require(Self.value(reply, "body", "state", "goals") as? [[String: Any]])
            let goal = try #require(goals.first?["id"] as? String)
            try send("CompleteOnboarding", "{}")
            reply = try send(
                "CreateDayEntry",
                #"{"focuses":[{"title":"Plan","goalId":"\#(goal)"},{"title":"Build","goalId":"\#(goal)"},{"title":"Ship","goalId":"\#(goal)"}]}"#)
            let entries = try #require(Self.value(reply, "body", "state", "dayEntries") as? [[String: Any]])
            let focus = try #require((entries.last?["focuses"] as? [[String: Any]])?.first?["id"] as? String)
            reply = try send("ToggleFocus", #"{"focusId":"\#(focus)"}"#)
            try expectTimeline("TenXHomeWidget", atLeast: reply) { entry in Self.number(entry, "completedCount") == 1 }

            // Stress Monitor: a measurement.
            reply = try send("RecordStressMeasurement", #"{"stressLevel":38,"hrvMilliseconds":52}"#)
            try expectTimeline("StressMonitorWidget", atLeast: reply) { entry in Self.number(entry, "stressLevel") == 38 }

            // Jitter: start a drink (the timer view), complete it (an openURL for the app).
            reply = try send("StartDrinkIntent", "{}")
            let session = try #require(Self.string(reply, "body", "state", "session", "id"))
            try expectTimeline("JitterWidget", atLeast: reply) { entry in entry["view"] as? String == "sipping" }
            reply = try send("CompleteDrinkIntent", #"{"sessionId":"\#(session)"}"#)
            #expect(Self.string(reply, "body", "openURL")?.hasPrefix("jitter://complete-drink") == true)
            try expectTimeline("JitterWidget", atLeast: reply) { entry in entry["view"] as? String == "scores" }

            // snapshot-writer wrote the Tension Check file; sync-agent pushes the pending records.
            try waitUntil("a TensionCheckWidget snapshot file") {
                try widgetctl("snapshot", "TensionCheckWidget", "--user", user).status == 0
            }
            let sync = try widgetctl("sync", "--user", user)
            #expect(sync.status == 0, "sync: \(sync.stdout) \(sync.stderr)")
            let pending = try widgetctl("pending", "--user", user)
            let records = (Self.json(pending.stdout)?["records"] as? [Any]) ?? [1]
            #expect(records.isEmpty, "records still pending after sync: \(pending.stdout)")
        }

        @discardableResult
        private func send(_ type: String, _ body: String) throws -> [String: Any] {
            let result = try widgetctl("send", type, "--user", user, "--body", body)
            guard result.status == 0, let reply = Self.json(result.stdout) else {
                Issue.record("send \(type) failed (\(result.status)): \(result.stdout) \(result.stderr)")
                throw FixtureError.commandFailed(result)
            }
            return reply
        }

        /// Waits until the kind's timeline reflects the reply's state version and its first entry
        /// satisfies `check`.
        private func expectTimeline(_ kind: String, atLeast reply: [String: Any], _ check: ([String: Any]) -> Bool) throws {
            let version = Self.number(reply, "body", "version") ?? 0
            var last = ""
            try waitUntil("\(kind) timeline at version \(version)") {
                let result = try widgetctl("timeline", kind, "--user", user)
                last = result.stdout
                guard result.status == 0, let timeline = Self.json(result.stdout),
                    (Self.number(timeline, "stateVersion") ?? 0) >= version,
                    let entry = (timeline["entries"] as? [[String: Any]])?.first
                else { return false }
                return check(entry)
            } failure: {
                "last timeline: \(last)"
            }
        }

        private func widgetctl(_ arguments: String...) throws -> CommandResult {
            try runCommand(BusFixture.productsDirectory.appendingPathComponent("widgetctl"), arguments, environment: environment)
        }

        private func waitUntil(_ what: String, _ condition: () throws -> Bool, failure: () -> String = { "" }) throws {
            let deadline = Date().addingTimeInterval(15)
            while Date() < deadline {
                if try condition() { return }
                usleep(100_000)
            }
            Issue.record("timed out waiting for \(what). \(failure())")
            throw FixtureError.timedOut(what)
        }

        static func json(_ text: String) -> [String: Any]? {
            (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
        }

        static func value(_ object: [String: Any], _ path: String...) -> Any? {
            var current: Any? = object
            for key in path { current = (current as? [String: Any])?[key] }
            return current
        }

        static func string(_ object: [String: Any], _ path: String...) -> String? {
            var current: Any? = object
            for key in path { current = (current as? [String: Any])?[key] }
            return current as? String
        }

        static func number(_ object: [String: Any], _ path: String...) -> Double? {
            var current: Any? = object
            for key in path { current = (current as? [String: Any])?[key] }
            return (current as? NSNumber)?.doubleValue
        }
    }

    // MARK: - Helpers

    /// `export NAME=value` lines (bash `%q` quoting of plain paths and URLs) over `base`.
    static func parseExports(_ text: String, into base: [String: String]) -> [String: String] {
        var environment = base
        for line in text.split(separator: "\n") {
            guard let match = line.wholeMatch(of: /export ([A-Z_][A-Z0-9_]*)=(.*)/) else { continue }
            environment[String(match.1)] = String(match.2).replacingOccurrences(of: "\\", with: "")
        }
        return environment
    }

    /// Whether a process exists and has not exited: an exited process nobody reaped yet (its
    /// parent is gone and this machine's init reaps lazily) is a zombie, state Z, holding nothing.
    static func isRunning(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return false }
        let state = stat[stat.index(close, offsetBy: 2)...].prefix(1)
        return state != "Z" && state != "X"
    }

    /// Whether nothing listens on the port any more (the services bind all interfaces).
    static func isFree(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var reuse: Int32 = 1  // a connection in TIME_WAIT is not a listener
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = 0  // INADDR_ANY
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }
}
