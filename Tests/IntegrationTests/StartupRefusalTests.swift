import BusRuntime
import Foundation
import ServiceSupport
import Testing
import WidgetBusProtocol
import ZeroMQ

/// A configuration that would leave the bus or its metrics open, or that could not work, is
/// refused at start by every executable — one line naming the setting, file or folder and why,
/// and exit status 78 — instead of a service that runs in plaintext or refuses everyone. Real
/// processes, real keys, real files.
@Suite(.serialized, .blockingThreads)
struct StartupRefusalTests {
    /// What an executable said and how it ended, when it was expected to stop by itself.
    struct Refusal {
        var status: Int32?
        var lines: [String]

        /// The one line that says why, when there is exactly one that contains `text`.
        func line(containing text: String) -> String? {
            let matching = lines.filter { $0.contains(text) }
            return matching.count == 1 ? matching[0] : nil
        }
    }

    /// Runs `executable` with the fixture's environment and `environment`, and waits (at most
    /// 10 s) for it to stop by itself; one still running then is stopped and the test fails.
    static func refusal(
        _ bus: BusFixture, _ executable: String, _ environment: [String: String], arguments: [String] = []
    ) throws -> Refusal {
        let process = try ServiceProcess(
            name: executable, executable: BusFixture.productsDirectory.appendingPathComponent(executable),
            environment: bus.environment.merging(environment) { $1 }, logDirectory: bus.root, arguments: arguments)
        defer { process.kill9() }
        try bus.waitUntil("\(executable) stops by itself", timeout: 10) { !process.isRunning }
        let lines = (process.log + process.output).split(separator: "\n").map(String.init)
        return Refusal(status: process.terminate(), lines: lines)
    }

    static let services = BusFixture.Service.allCases.map(\.rawValue)

    // MARK: - Half a CURVE setup

    @Test("half a CURVE setup: every service and widgetctl refuse to start, naming the missing setting")
    func halfACurveSetupIsRefused() throws {
        let (bus, keys) = try CurveBusTests.fixture()
        let keysOnly = [BusSecurity.keysDirectory.variable: keys.publicDirectory.path, BusSecurity.secretKeyFile.variable: ""]
        var secretOnly = keys.environment(as: "intent-handler")
        secretOnly[BusSecurity.keysDirectory.variable] = ""
        let cases = [
            (keysOnly, "WIDGETBUS_CURVE_SECRET_KEY_FILE is not"),
            (secretOnly, "WIDGETBUS_CURVE_KEYS_DIR is not"),
        ]
        for (environment, missing) in cases {
            for service in Self.services {
                let refusal = try Self.refusal(bus, service, environment)
                #expect(refusal.status == InvalidSetting.exitStatus, "\(service) with \(missing): \(refusal.lines)")
                #expect(refusal.line(containing: missing)?.hasPrefix("\(service): ") == true, "\(service): \(refusal.lines)")
            }
            let widgetctl = try Self.refusal(bus, "widgetctl", environment, arguments: ["ping", "intent-handler", "--attempts", "1"])
            #expect(widgetctl.status == InvalidSetting.exitStatus && widgetctl.lines.count == 1, "\(widgetctl.lines)")
            #expect(widgetctl.line(containing: missing) != nil)
        }
    }

    @Test("the local runner refuses public keys without the secrets folder, and starts nothing")
    func localRunnerRefusesHalfACurveSetup() throws {
        let (bus, keys) = try CurveBusTests.fixture()
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("WIDGETBUS_") }
        environment["WIDGETBUS_LOCAL_DIR"] = bus.root.appendingPathComponent("local").path
        environment["WIDGETBUS_BIN_DIR"] = BusFixture.productsDirectory.path
        environment[BusSecurity.keysDirectory.variable] = keys.publicDirectory.path
        let up = try runCommand(DeploymentConfigurationTests.deploy.appendingPathComponent("local/widgetbus"), ["up"], environment: environment)
        #expect(up.status != 0)
        #expect(up.stderr.contains("WIDGETBUS_CURVE_SECRETS_DIR is not"), "\(up.stderr)")
        let pids = bus.root.appendingPathComponent("local/run")
        #expect((try? FileManager.default.contentsOfDirectory(atPath: pids.path).filter { $0.hasSuffix(".pid") }) ?? [] == [])
    }

    // MARK: - Keys folders

    @Test("a keys folder that is missing or empty, or a role's folder missing where it is served, stops the service at start, naming it")
    func wrongKeysFolderIsRefused() throws {
        let (bus, keys) = try CurveBusTests.fixture()
        let empty = bus.root.appendingPathComponent("empty-keys")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let missing = bus.root.appendingPathComponent("no-such-keys")
        let gateways = keys.publicDirectory.appendingPathComponent("gateways")
        for (folder, named) in [(missing, missing.path), (empty, empty.appendingPathComponent("services").path)] {
            var environment = keys.environment(as: "intent-handler")
            environment[BusSecurity.keysDirectory.variable] = folder.path
            let refusal = try Self.refusal(bus, "intent-handler", environment)
            #expect(refusal.status == InvalidSetting.exitStatus)
            #expect(refusal.line(containing: named) != nil, "names \(named): \(refusal.lines)")
            #expect(!refusal.lines.contains { $0.contains("ready") })
        }
        try FileManager.default.removeItem(at: gateways)
        let refusal = try Self.refusal(bus, "intent-handler", keys.environment(as: "intent-handler"))
        #expect(refusal.status == InvalidSetting.exitStatus)
        #expect(refusal.line(containing: gateways.path) != nil, "names \(gateways.path): \(refusal.lines)")
        // A service that serves nothing reads no allow-list: the servers' keys are all it needs.
        try bus.start(.snapshotWriter, extraEnvironment: keys.environment(as: "snapshot-writer"))
    }

    @Test("at SIGHUP, a missing role folder or a group-writable one keeps the lists in force and logs why")
    func badFoldersAtReloadKeepThePreviousLists() throws {
        let (bus, keys) = try CurveBusTests.fixture()
        let handler = try bus.start(.intentHandler, extraEnvironment: keys.environment(as: "intent-handler"))
        try keys.add("newcomer", role: "publishers")  // listed, but not read until a reload succeeds
        let send = ["send", "ResetWidgetIntent", "--user", "n", "--timeout", "500", "--attempts", "1"]
        let publishers = keys.publicDirectory.appendingPathComponent("publishers")
        let gateways = keys.publicDirectory.appendingPathComponent("gateways")

        try FileManager.default.moveItem(at: gateways, to: bus.root.appendingPathComponent("gateways-aside"))
        kill(handler.pid, SIGHUP)
        try bus.waitUntil("the reload is refused", timeout: 10) { handler.log.contains("allow-lists not reloaded") }
        #expect(handler.log.split(separator: "\n").contains { $0.contains("not reloaded") && $0.contains(gateways.path) })
        #expect(try CurveBusTests.widgetctl(bus, keys.environment(as: "newcomer"), send).status == 2, "the previous lists stay")
        #expect(try CurveBusTests.widgetctl(bus, keys.environment(as: "app"), send).status == 0, "and still let the app in")

        try FileManager.default.moveItem(at: bus.root.appendingPathComponent("gateways-aside"), to: gateways)
        chmod(publishers.path, 0o777)
        kill(handler.pid, SIGHUP)
        try bus.waitUntil("the reload is refused again", timeout: 10) {
            handler.log.split(separator: "\n").contains { $0.contains("not reloaded") && $0.contains("writable by its group or others") }
        }
        #expect(try CurveBusTests.widgetctl(bus, keys.environment(as: "newcomer"), send).status == 2, "a folder others may write is not read")

        chmod(publishers.path, 0o755)
        kill(handler.pid, SIGHUP)
        try bus.waitUntil("the reload succeeds", timeout: 10) { handler.log.contains("allow-lists reloaded") }
        #expect(try CurveBusTests.widgetctl(bus, keys.environment(as: "newcomer"), send).status == 0)
    }

    // MARK: - Key files like ssh

    @Test("a secret key others may read, or an allow-list folder others may write, stops the service at start")
    func keyFilesAreHandledLikeSSH() throws {
        let (bus, keys) = try CurveBusTests.fixture()
        let secret = keys.root.appendingPathComponent("secret/intent-handler.key_secret")
        for mode in [0o644, 0o666, 0o640] as [mode_t] {
            chmod(secret.path, mode)
            let refusal = try Self.refusal(bus, "intent-handler", keys.environment(as: "intent-handler"))
            #expect(refusal.status == InvalidSetting.exitStatus)
            let line = refusal.line(containing: secret.path)
            #expect(line?.contains("0" + String(mode, radix: 8)) == true && line?.contains("chmod 600") == true, "\(refusal.lines)")
        }
        chmod(secret.path, 0o600)
        let operators = keys.publicDirectory.appendingPathComponent("operators")
        chmod(operators.path, 0o775)
        let refusal = try Self.refusal(bus, "intent-handler", keys.environment(as: "intent-handler"))
        #expect(refusal.status == InvalidSetting.exitStatus)
        #expect(refusal.line(containing: operators.path)?.contains("0775") == true, "\(refusal.lines)")
    }

    @Test("curve-keys.sh and widgetctl keygen make folders no group or other may write, whatever the umask")
    func keyFoldersIgnoreTheUmask() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("umask-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let script = DeploymentConfigurationTests.repository.appendingPathComponent("scripts/curve-keys.sh")
        let widgetctl = BusFixture.productsDirectory.appendingPathComponent("widgetctl")
        let made = try runCommand(
            URL(fileURLWithPath: "/bin/bash"), ["-c", "umask 000 && bash \"$0\" \"$1\"", script.path, root.appendingPathComponent("set").path],
            environment: ["PATH": "/usr/bin:/bin", "WIDGETCTL": widgetctl.path])
        #expect(made.status == 0, "\(made.stderr)")
        let set = root.appendingPathComponent("set")
        for folder in ["", "public", "public/services", "public/publishers", "public/gateways", "public/operators"] {
            #expect(try Self.mode(set.appendingPathComponent(folder)) & 0o022 == 0, "\(folder) is writable by group or others")
        }
        #expect(try Self.mode(set.appendingPathComponent("secret")) == 0o700)
        #expect(try Self.mode(set.appendingPathComponent("secret/app.key_secret")) == 0o600)

        let out = root.appendingPathComponent("keygen/nested")
        let keygen = try runCommand(
            URL(fileURLWithPath: "/bin/bash"), ["-c", "umask 000 && \"$0\" keygen --out \"$1\" --name k", widgetctl.path, out.path],
            environment: ["PATH": "/usr/bin:/bin"])
        #expect(keygen.status == 0, "\(keygen.stderr)")
        #expect(try Self.mode(out) == 0o755 && Self.mode(out.deletingLastPathComponent()) == 0o755)
    }

    static func mode(_ url: URL) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int)
    }

    // MARK: - One line, one status

    @Test("an unreadable secret, a folder given as a file, keygen into a file: one line with the path and the reason")
    func oneLineErrors() throws {
        let (bus, keys) = try CurveBusTests.fixture()
        let absent = bus.root.appendingPathComponent("absent.key_secret")
        let folder = keys.root.appendingPathComponent("secret")
        for (file, reason) in [(absent, "No such file or directory"), (folder, "not a file")] {
            var environment = keys.environment(as: "intent-handler")
            environment[BusSecurity.secretKeyFile.variable] = file.path
            for executable in ["intent-handler", "widgetctl"] {
                let refusal = try Self.refusal(bus, executable, environment, arguments: executable == "widgetctl" ? ["ping", "intent-handler"] : [])
                #expect(refusal.status == InvalidSetting.exitStatus)
                #expect(refusal.lines.count == 1, "\(executable): \(refusal.lines)")
                #expect(refusal.line(containing: file.path)?.contains(reason) == true, "\(executable): \(refusal.lines)")
                #expect(!refusal.lines.joined().contains("NSCocoaErrorDomain"))
            }
        }
        let aFile = bus.root.appendingPathComponent("plain-file")
        try "x".write(to: aFile, atomically: true, encoding: .utf8)
        let keygen = try bus.widgetctl("keygen", "--out", aFile.path, "--name", "k")
        let lines = keygen.stderr.split(separator: "\n")
        #expect(keygen.status == 1 && lines.count == 1, "\(keygen.stderr)")
        #expect(lines.first?.contains(aFile.path) == true && lines.first?.contains("not a folder") == true)
        #expect(!keygen.stderr.contains("Error Domain"))
    }

    @Test("every service refuses a bad setting with exit status 78, and says so in its --help")
    func oneExitStatusForARefusedSetting() throws {
        let bus = try BusFixture()
        for service in Self.services {
            let refusal = try Self.refusal(bus, service, ["WIDGETBUS_HTTP_LISTEN": "9464"])
            #expect(refusal.status == InvalidSetting.exitStatus, "\(service): \(refusal.status.map(String.init) ?? "killed")")
            #expect(refusal.line(containing: "WIDGETBUS_HTTP_LISTEN must be host:port")?.hasPrefix("\(service): ") == true, "\(refusal.lines)")
            let help = try runCommand(BusFixture.productsDirectory.appendingPathComponent(service), ["--help"], environment: [:])
            #expect(help.stdout.contains("Exit status: 78 when a setting is refused at start"), "\(service) --help")
        }
    }

    // MARK: - What the bus and the metrics expose

    @Test("every service says at start whether its bus is CURVE or plaintext and where it really listens; plaintext beyond loopback warns")
    func startLineSaysCurveOrPlaintextAndTheRealAddress() throws {
        let bus = try BusFixture()
        let port = BindingTests.port(of: bus.endpoint(.intents))
        let open = try bus.start(.intentHandler, extraEnvironment: ["WIDGETBUS_BIND_HOST": "0.0.0.0", "WIDGETBUS_INSECURE": "1"])
        let warning = open.log.split(separator: "\n").filter { $0.contains("bus in plaintext beyond loopback") }
        #expect(warning.count == 1 && warning.first?.contains("warning") == true, "\(open.log)")
        #expect(warning.first?.contains("tcp://0.0.0.0:\(port)") == true, "the real address, not the variable's 127.0.0.1")
        bus.stop(.intentHandler)

        let quiet = try bus.start(.intentHandler)
        let plain = quiet.log.split(separator: "\n").filter { $0.contains("bus in plaintext") }
        #expect(plain.count == 1 && plain.first?.contains("info") == true && plain.first?.contains("tcp://127.0.0.1:\(port)") == true, "\(quiet.log)")
        let writer = try bus.start(.snapshotWriter)
        // Its ready line comes from start(on:); the exposure line follows once the bus has bound.
        try bus.waitUntil("snapshot-writer says how its bus runs", timeout: 15) { writer.log.contains("bus in plaintext") }
        #expect(writer.log.split(separator: "\n").filter { $0.contains("bus in plaintext") }.count == 1, "a service that only connects says it too")
        bus.stop(.intentHandler)

        let keys = try CurveKeys(under: bus.root.appendingPathComponent("curve"))
        bus.environment.merge(keys.environment(as: "operator")) { $1 }
        let curve = try bus.start(.intentHandler, extraEnvironment: keys.environment(as: "intent-handler"))
        let line = curve.log.split(separator: "\n").filter { $0.contains("bus in CURVE") }
        #expect(line.count == 1 && line.first?.contains("tcp://127.0.0.1:\(port)") == true, "\(curve.log)")
    }

    @Test("/metrics beyond loopback needs WIDGETBUS_HTTP_SCRAPE_NETWORK=1 or WIDGETBUS_INSECURE=1, as the bus needs keys")
    func metricsFollowTheBindRule() throws {
        let bus = try BusFixture()
        let port = try freeLoopbackPort()
        let listen = ["WIDGETBUS_HTTP_LISTEN": "0.0.0.0:\(port)"]
        for service in Self.services {
            let refusal = try Self.refusal(bus, service, listen)
            #expect(refusal.status == InvalidSetting.exitStatus)
            #expect(refusal.line(containing: "refusing to serve metrics on 0.0.0.0")?.contains("WIDGETBUS_HTTP_SCRAPE_NETWORK=1") == true, "\(refusal.lines)")
        }
        for allowed in [["WIDGETBUS_HTTP_SCRAPE_NETWORK": "1"], ["WIDGETBUS_INSECURE": "1"]] {
            try bus.start(.metricsIngest, extraEnvironment: listen.merging(allowed) { $1 })
            try bus.waitUntil("metrics are served on every interface", timeout: 15) {
                (try? PrometheusText.scrape("http://127.0.0.1:\(port)/metrics")) != nil
            }
            #expect(try BindingTests.listening(on: port) == ["0.0.0.0:\(port)"])
            bus.stop(.metricsIngest)
        }
    }
}
