import Foundation
import Testing
import WidgetBusProtocol
import WidgetDomain

/// A private WidgetBus for one test: its own data directory and free loopback ports for every
/// endpoint, the real executables started as processes, and `widgetctl` to drive them.
final class BusFixture {
    enum Service: String, CaseIterable {
        case intentHandler = "intent-handler"
        case timelineService = "timeline-service"
        case snapshotWriter = "snapshot-writer"
        case syncAgent = "sync-agent"
        case metricsIngest = "metrics-ingest"
        case pushGateway = "push-gateway"
        case appGateway = "app-gateway"
    }

    /// Where `swift build` put the executables: next to the test binary.
    static let productsDirectory: URL = {
        if let directory = ProcessInfo.processInfo.environment["WIDGETBUS_BIN_DIR"] {
            return URL(fileURLWithPath: directory)
        }
        var directory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("intent-handler").path),
            directory.path != "/"
        {
            directory = directory.deletingLastPathComponent()
        }
        return directory
    }()

    let root: URL
    /// What every process the fixture starts gets; a test may add to it (keys, say) before it
    /// starts any.
    var environment: [String: String]
    private(set) var running: [Service: ServiceProcess] = [:]
    private var logs: [String] = []
    let codec = WireCodec()

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("widgetbus-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        var environment = ProcessInfo.processInfo.environment
        for endpoint in BusEndpoint.all {
            environment[endpoint.variable] = "tcp://127.0.0.1:\(try freeLoopbackPort())"
        }
        environment["WIDGETBUS_DATA_DIR"] = root.appendingPathComponent("data").path
        environment["WIDGETBUS_LOG_LEVEL"] = "debug"
        environment["WIDGETBUS_SNAPSHOT_DIR"] = root.appendingPathComponent("snapshots").path
        self.environment = environment
    }

    deinit {
        for process in running.values { process.kill9() }
        try? FileManager.default.removeItem(at: root)
    }

    func endpoint(_ endpoint: BusEndpoint) -> String {
        environment[endpoint.variable]!
    }

    // MARK: - Services

    /// Starts `service` and waits until it answers a ping. `extraEnvironment` is added to the
    /// fixture's environment for this process only.
    @discardableResult
    func start(_ service: Service, extraEnvironment: [String: String] = [:]) throws -> ServiceProcess {
        let process = try ServiceProcess(
            name: service.rawValue, executable: Self.productsDirectory.appendingPathComponent(service.rawValue),
            environment: environment.merging(extraEnvironment) { $1 }, logDirectory: root)
        running[service] = process
        if service == .snapshotWriter || service == .pushGateway {  // they have no request socket to ping
            try waitUntil("\(service.rawValue) is ready", timeout: 15) { process.log.contains("\(service.rawValue) ready") }
            return process
        }
        if service == .appGateway {
            try waitUntil("app-gateway listens", timeout: 15) { process.log.contains("app-gateway listening") }
            return process
        }
        try waitUntil("\(service.rawValue) answers ping", timeout: 15) {
            try widgetctl("ping", service.rawValue, "--timeout", "300", "--attempts", "1").status == 0
        }
        return process
    }

    /// Starts `service` serving its metrics on a free loopback port, and waits until they answer
    /// (the HTTP listener binds beside the bus, not before it); returns their URL.
    func startServingMetrics(_ service: Service, extraEnvironment: [String: String] = [:]) throws -> String {
        let port = try freeLoopbackPort()
        try start(service, extraEnvironment: extraEnvironment.merging(["WIDGETBUS_HTTP_LISTEN": "127.0.0.1:\(port)"]) { $1 })
        let url = "http://127.0.0.1:\(port)/metrics"
        try waitUntil("\(service.rawValue) serves its metrics", timeout: 15) { (try? PrometheusText.scrape(url)) != nil }
        return url
    }

    /// SIGTERM and wait; returns the exit status.
    @discardableResult
    func stop(_ service: Service) -> Int32? {
        guard let process = running.removeValue(forKey: service) else { return nil }
        logs.append(process.log)
        return process.terminate()
    }

    func kill9(_ service: Service) {
        guard let process = running.removeValue(forKey: service) else { return }
        process.kill9()
        logs.append(process.log)
    }

    /// Everything the services logged so far, for failure messages.
    var allLogs: String {
        (logs + running.values.map(\.log)).joined(separator: "\n----\n")
    }

    // MARK: - widgetctl

    func widgetctl(_ arguments: String...) throws -> CommandResult {
        try widgetctl(arguments)
    }

    func widgetctl(_ arguments: [String]) throws -> CommandResult {
        try runCommand(Self.productsDirectory.appendingPathComponent("widgetctl"), arguments, environment: environment)
    }

    /// widgetctl with `arguments`, expecting success.
    @discardableResult
    func succeed(_ arguments: String...) throws -> CommandResult {
        let result = try widgetctl(arguments)
        guard result.status == 0 else {
            Issue.record("widgetctl \(arguments.joined(separator: " ")) failed (\(result.status)): \(result.stdout) \(result.stderr)")
            throw FixtureError.commandFailed(result)
        }
        return result
    }

    /// `widgetctl send`, expecting success; returns the state the reply carries.
    @discardableResult
    func send(_ type: MessageType, user: String, body: String = "{}", id: String? = nil) throws -> StateRecord {
        let result = try sendRaw(type.rawValue, user: user, body: body, id: id)
        guard result.status == 0 else {
            Issue.record("send \(type.rawValue) failed (\(result.status)): \(result.stdout) \(result.stderr)")
            throw FixtureError.commandFailed(result)
        }
        return try codec.decode(Envelope<StateRecord>.self, from: result.stdoutData).body
    }

    func sendRaw(_ type: String, user: String, body: String = "{}", id: String? = nil) throws -> CommandResult {
        var arguments = ["send", type, "--user", user, "--body", body]
        if let id { arguments += ["--id", id] }
        return try widgetctl(arguments)
    }

    /// `widgetctl send`, expecting success; returns the whole reply body (state and `openURL`).
    func sendForReply(_ type: MessageType, user: String, body: String = "{}") throws -> StateReplyBody {
        let result = try sendRaw(type.rawValue, user: user, body: body)
        guard result.status == 0 else {
            Issue.record("send \(type.rawValue) failed (\(result.status)): \(result.stdout) \(result.stderr)")
            throw FixtureError.commandFailed(result)
        }
        return try codec.decode(Envelope<StateReplyBody>.self, from: result.stdoutData).body
    }

    /// The state intent-handler holds for `user` and `app`, read through its snapshot endpoint.
    func storedState(_ app: WidgetApp, user: String) throws -> StateRecord? {
        let client = try RawClient(endpoint: endpoint(.stateSnapshot))
        let request = RawClient.envelope(
            type: "SnapshotRequest", user: nil, body: #"{"prefix":"\#(Topic.state(app: app, user: user))"}"#)
        guard let reply = try client.exchange([Data(request.utf8)]) else { throw FixtureError.timedOut("snapshot") }
        return try codec.decode(Envelope<SnapshotBody>.self, from: reply[0]).body.states
            .first { $0.user == user && $0.app == app }
    }

    /// The error a `widgetctl send` answered with (exit status 1).
    func sendExpectingError(_ type: MessageType, user: String, body: String = "{}") throws -> ErrorBody {
        try sendExpectingError(type.rawValue, user: user, body: body)
    }

    func sendExpectingError(_ type: String, user: String, body: String = "{}") throws -> ErrorBody {
        let result = try sendRaw(type, user: user, body: body)
        #expect(result.status == 1, "expected an error reply, got \(result.stdout)")
        return try codec.decode(Envelope<ErrorBody>.self, from: result.stdoutData).body
    }

    func pendingRecords(user: String) throws -> [PendingRecord] {
        let result = try widgetctl("pending", "--user", user)
        guard result.status == 0 else { throw FixtureError.commandFailed(result) }
        return try codec.decode(PendingRecordsBody.self, from: result.stdoutData).records.map(\.record)
    }

    /// The timeline `widgetctl timeline` prints, once timeline-service reflects `atLeastVersion`
    /// (asked as its minimum version) and at least `metricsVersion`. It is asked again while
    /// timeline-service is starting (`unavailable`) and until the metrics arrive.
    func timeline<Content: Codable & Sendable & Equatable>(
        _ kind: WidgetKind, user: String, as content: Content.Type, atLeastVersion version: UInt64 = 0,
        metricsVersion: UInt64 = 0
    ) throws -> DecodedTimelineBody<Content> {
        var latest: DecodedTimelineBody<Content>?
        try waitUntil("timeline of \(kind.rawValue) for \(user) reaches version \(version)/\(metricsVersion)", timeout: 10) {
            let result = try widgetctl("timeline", kind.rawValue, "--user", user, "--minimum-version", "\(version)")
            guard result.status == 0 else { return false }
            latest = try codec.decode(DecodedTimelineBody<Content>.self, from: result.stdoutData)
            return latest!.stateVersion >= version && latest!.metricsVersion ?? 0 >= metricsVersion
        }
        return latest!
    }

    func tensionTimeline(user: String, atLeastVersion version: UInt64 = 0) throws -> DecodedTimelineBody<TensionCheckPhase> {
        try timeline(.tensionCheck, user: user, as: TensionCheckPhase.self, atLeastVersion: version)
    }

    // MARK: - Snapshot files

    var snapshotRoot: URL { URL(fileURLWithPath: environment["WIDGETBUS_SNAPSHOT_DIR"]!) }

    func snapshotURL(_ kind: WidgetKind, user: String) -> URL {
        snapshotRoot.appendingPathComponent(user).appendingPathComponent("\(kind.rawValue).json")
    }

    /// The snapshot file of `user`'s `kind`, decoded; nil while there is none.
    func snapshot<Content: Codable & Sendable & Equatable>(
        _ kind: WidgetKind, user: String, as content: Content.Type
    ) throws -> DecodedSnapshot<Content>? {
        guard let data = FileManager.default.contents(atPath: snapshotURL(kind, user: user).path) else { return nil }
        return try codec.decode(DecodedSnapshot<Content>.self, from: data)
    }

    /// The snapshot file of `user`'s `kind` once it reflects exactly state `version` (and, when
    /// given, exactly `metricsVersion`).
    func snapshot<Content: Codable & Sendable & Equatable>(
        _ kind: WidgetKind, user: String, as content: Content.Type, version: UInt64, metricsVersion: UInt64? = nil
    ) throws -> DecodedSnapshot<Content> {
        var latest: DecodedSnapshot<Content>?
        try waitUntil("snapshot of \(kind.rawValue) for \(user) reaches version \(version)", timeout: 10) {
            latest = try snapshot(kind, user: user, as: content)
            return latest?.stateVersion == version && (metricsVersion == nil || latest?.metricsVersion == metricsVersion)
        }
        return latest!
    }

    func tensionSnapshot(user: String, version: UInt64) throws -> DecodedSnapshot<TensionCheckPhase> {
        try snapshot(.tensionCheck, user: user, as: TensionCheckPhase.self, version: version)
    }

    // MARK: - Waiting

    func waitUntil(_ what: String, timeout: Double, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try condition() { return }
            usleep(50_000)
        }
        Issue.record("timed out after \(timeout) s waiting until \(what)\nlogs:\n\(allLogs)")
        throw FixtureError.timedOut(what)
    }
}

enum FixtureError: Error {
    case commandFailed(CommandResult)
    case timedOut(String)
}

/// A snapshot file as a widget reads it (docs/SNAPSHOTS.md), with entries of a known content type.
struct DecodedSnapshot<Content: Codable & Sendable & Equatable>: Decodable, Equatable {
    struct Timeline: Decodable, Equatable {
        var entries: [TimelineEntry<Content>]
        var policy: ReloadPolicy
    }

    var schemaVersion: Int
    var kind: WidgetKind
    var user: String
    var stateVersion: UInt64
    var metricsVersion: UInt64?
    var timeZone: String
    var generatedAt: Date
    var validUntil: Date?
    var timeline: Timeline
}
