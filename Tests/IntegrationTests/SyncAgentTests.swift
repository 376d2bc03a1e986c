import Foundation
import GRDB
import Testing
import WidgetBusProtocol
import WidgetDomain
import ZeroMQ

/// sync-agent against a real PostgreSQL server (started by the suite on a free loopback port) and
/// against its embedded SQLite default: pending records reach the target exactly once, whatever
/// fails in between.
@Suite(.serialized, .postgresServer, .blockingThreads)
struct SyncAgentTests {
    enum TargetKind: String, CaseIterable, CustomTestStringConvertible {
        case postgres, sqlite
        var testDescription: String { rawValue }
    }

    // MARK: - Schema and configuration

    @Test func theDeployedSchemaIsTheOneTheAgentRuns() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let file = try String(contentsOf: root.appendingPathComponent("deploy/postgres/001_widget_records.sql"), encoding: .utf8)
        let printed = try runCommand(
            BusFixture.productsDirectory.appendingPathComponent("sync-agent"), ["--print-schema"], environment: [:])
        #expect(printed.status == 0)
        #expect(printed.stdout == file, "deploy/postgres/001_widget_records.sql differs from `sync-agent --print-schema`")

        let help = try runCommand(BusFixture.productsDirectory.appendingPathComponent("sync-agent"), ["--help"], environment: [:])
        for variable in [
            "WIDGETBUS_SYNC", "WIDGETBUS_SYNC_EVENTS", "WIDGETBUS_INTENTS", "WIDGETBUS_STATE_EVENTS", "WIDGETBUS_SYNC_DATABASE_URL",
            "WIDGETBUS_DATA_DIR", "WIDGETBUS_SYNC_INTERVAL", "WIDGETBUS_SYNC_BACKOFF_BASE", "WIDGETBUS_SYNC_BACKOFF_CAP",
            "WIDGETBUS_SYNC_CONCURRENCY", "WIDGETBUS_SYNC_DATABASE_TIMEOUT", "WIDGETBUS_LOG_LEVEL",
        ] {
            #expect(help.stdout.contains("  \(variable) "), "--help does not list \(variable)")
        }
    }

    // MARK: - Delivery

    @Test(arguments: TargetKind.allCases)
    func recordsOfEveryWidgetReachTheTargetOnceAfterRepeatedPasses(_ kind: TargetKind) throws {
        let sync = try SyncFixture(kind)
        try sync.startAgent()
        let user = "ada"
        try sync.bus.send(.recordTension, user: user, body: #"{"level":3}"#)
        let checkIn = try sync.recordSevereTension(user: user)
        var expected: [String: Int] = ["stress_check_ins": 2, "food_logs": 0, "drink_sessions": 0]
        expected["food_logs"] = try sync.quickLogFoods(user: user, count: 2)
        expected["drink_sessions"] = try sync.finishDrinks(user: user, count: 1)
        let pending = try sync.pending(user)
        #expect(pending.count == expected.values.reduce(0, +))

        let first = try sync.sync(user)
        #expect(first.status == 0)
        #expect(first.result?.pushed == pending.count)
        #expect(first.result?.failures == [])
        #expect(try sync.pending(user).isEmpty)
        for (table, count) in expected {
            #expect(try sync.count(table) == count, "\(table) after the first pass")
        }
        let stored = try sync.target("SELECT id, user_id, revision FROM stress_check_ins UNION ALL SELECT id, user_id, revision FROM food_logs UNION ALL SELECT id, user_id, revision FROM drink_sessions")
        #expect(Set(stored.map { $0[0] }) == Set(pending.map(\.record.id)))
        #expect(stored.allSatisfy { $0[1] == user })
        #expect(Set(stored.map { "\($0[0])@\($0[2])" }) == Set(pending.map { "\($0.record.id)@\($0.revision)" }))

        // Passes with nothing pending change nothing.
        for _ in 0..<2 {
            let again = try sync.sync(user)
            #expect(again.result?.pushed == 0)
            #expect(again.result?.failures == [])
        }
        for (table, count) in expected {
            #expect(try sync.count(table) == count, "\(table) after repeated passes")
        }

        // The check-in marked done after its sync is synced again and its row updated in place.
        try sync.bus.send(.markInterventionDone, user: user, body: #"{"checkInId":"\#(checkIn)"}"#)
        let revised = try sync.pending(user)
        #expect(revised.map(\.record.id) == [checkIn])
        let third = try sync.sync(user)
        #expect(third.result?.pushed == 1)
        #expect(try sync.count("stress_check_ins") == 2)
        let row = try sync.target("SELECT revision, CASE WHEN intervention_completed THEN 1 ELSE 0 END FROM stress_check_ins WHERE id = '\(checkIn)'")
        #expect(row.first == ["\(revised[0].revision)", "1"])

        // sync-status: the latest result per user, and for one user.
        let other = try sync.sync("bea")
        #expect(other.result?.pushed == 0)
        #expect(try sync.status(user: user).map(\.pushed) == [1])
        #expect(try sync.status(user: nil).map(\.user) == ["ada", "bea"])
        #expect(try sync.status(user: "nobody").isEmpty)
        #expect(sync.bus.stop(.syncAgent) == 0, "SIGTERM must end sync-agent with status 0")
    }

    @Test func aPassWithTheDatabaseStoppedLeavesEverythingPendingAndTheNextDeliversItOnce() throws {
        let sync = try SyncFixture(.postgres)
        try sync.startAgent(["WIDGETBUS_SYNC_DATABASE_TIMEOUT": "2"])
        let user = "cai"
        for level in [0, 3, 5] { try sync.bus.send(.recordTension, user: user, body: #"{"level":\#(level)}"#) }
        let pending = try sync.pending(user)

        try sync.server!.stopImmediately()
        defer { try? sync.server!.start() }
        let failed = try sync.sync(user)
        #expect(failed.status == 1)
        #expect(failed.result?.pushed == 0)
        #expect(failed.result?.failures.count == 1)
        #expect(failed.result?.failures.first?.id == nil, "a whole-pass failure names no record")
        #expect(failed.result?.nextAttemptAt != nil, "a failed pass schedules a retry")
        #expect(try sync.pending(user) == pending, "nothing is acknowledged when the database is down")
        #expect(try sync.status(user: user).first?.failures.count == 1)

        try sync.server!.start()
        var pushed = 0
        try sync.bus.waitUntil("a pass succeeds after the restart", timeout: 20) {
            let result = try sync.sync(user)
            pushed += result.result?.pushed ?? 0
            return result.status == 0
        }
        #expect(pushed <= pending.count)
        #expect(try sync.pending(user).isEmpty)
        #expect(try sync.count("stress_check_ins") == pending.count)
        #expect(try sync.target("SELECT count(DISTINCT id) FROM stress_check_ins") == [["\(pending.count)"]])
    }

    @Test func aPoisonRecordIsReportedAndDoesNotBlockTheOthers() throws {
        let sync = try SyncFixture(.postgres)
        try sync.startAgent()
        try sync.bus.waitUntil("the agent created the schema", timeout: 10) {
            try sync.target("SELECT to_regclass('stress_check_ins') IS NOT NULL") == [["t"]]
        }
        try sync.server!.psql(
            "ALTER TABLE stress_check_ins ADD CONSTRAINT test_no_severe CHECK (tension_level < 10)", database: sync.database)
        let user = "fay"
        try sync.bus.send(.recordTension, user: user, body: #"{"level":3}"#)
        let poison = try sync.recordSevereTension(user: user)
        try sync.bus.send(.recordTension, user: user, body: #"{"level":5}"#)

        let first = try sync.sync(user)
        #expect(first.status == 1, "a result with failures exits 1")
        #expect(first.result?.pushed == 2)
        #expect(first.result?.failures.count == 1)
        let failure = first.result?.failures.first
        #expect(failure?.collection == "stress_check_ins")
        #expect(failure?.id == poison)
        #expect(failure?.error.contains("test_no_severe") == true, "\(failure?.error ?? "")")
        #expect(first.result?.nextAttemptAt != nil)
        #expect(try sync.pending(user).map(\.record.id) == [poison])
        #expect(try sync.count("stress_check_ins") == 2)

        // Later records still go through; the poison one keeps failing alone.
        try sync.bus.send(.recordTension, user: user, body: #"{"level":0}"#)
        let second = try sync.sync(user)
        #expect(second.result?.pushed == 1)
        #expect(second.result?.failures.map(\.id) == [poison])
        #expect(try sync.count("stress_check_ins") == 3)
        #expect(try sync.status(user: user).first?.failures.map(\.id) == [poison])

        // Once the target accepts it, it is delivered like any other.
        try sync.server!.psql("ALTER TABLE stress_check_ins DROP CONSTRAINT test_no_severe", database: sync.database)
        let third = try sync.sync(user)
        #expect(third.status == 0)
        #expect(third.result?.pushed == 1)
        #expect(try sync.pending(user).isEmpty)
        #expect(try sync.count("stress_check_ins") == 4)
    }

    // MARK: - Triggers and the bus

    @Test func appForegroundTriggersASyncWhoseResultIsPublished() throws {
        let sync = try SyncFixture(.sqlite)
        try sync.startAgent()
        let user = "gus"
        let events = try SyncEventSubscriber(endpoint: sync.bus.endpoint(.syncEvents), topic: Topic.syncCompleted(user: user))
        for level in [0, 7] { try sync.bus.send(.recordTension, user: user, body: #"{"level":\#(level)}"#) }

        let foreground = try sync.bus.sendRaw("AppForeground", user: user)
        #expect(foreground.status == 0)
        let event = try events.next(timeout: 10)
        #expect(event?.type == MessageType.syncCompleted.rawValue)
        #expect(event?.user == user)
        #expect(event?.body.result.pushed == 2)
        #expect(event?.body.sequence == 1, "sync-agent's own sequence starts at 1")
        #expect(try sync.pending(user).isEmpty)
        #expect(try sync.count("stress_check_ins") == 2)
        #expect(try sync.status(user: user).map(\.pushed) == [2])

        // Bad input gets error replies with stable codes, and the agent keeps serving.
        let raw = try RawClient(endpoint: sync.bus.endpoint(.sync))
        #expect(try raw.errorReply(toJSON: "{not json")?.body.code == .badJSON)
        #expect(try raw.errorReply(toJSON: RawClient.envelope(type: "SyncRequest", user: nil, body: "{}"))?.body.code == .missingField)
        #expect(try raw.errorReply(toJSON: RawClient.envelope(type: "RecordTensionIntent", body: #"{"level":3}"#))?.body.code == .unknownType)
        #expect(try raw.errorReply(toJSON: RawClient.envelope(type: "SyncRequest", user: "a/b", body: "{}"))?.body.code == .invalidUser)
        #expect(try sync.bus.widgetctl("ping", "sync-agent").status == 0)
        #expect(sync.bus.stop(.syncAgent) == 0)
    }

    // MARK: - intent-handler frozen

    /// Starts `widgetctl sync` for `user` with intent-handler stopped (SIGSTOP), and returns once
    /// sync-agent has sent its pass's request a second time: the pass is waiting for intent-handler.
    private func syncWaitingForFrozenIntentHandler(_ sync: SyncFixture, user: String) throws -> (intentHandler: Int32, sync: ServiceProcess) {
        let intentHandler = try #require(sync.bus.running[.intentHandler]).pid
        kill(intentHandler, SIGSTOP)
        let request = try ServiceProcess(
            name: "sync", executable: BusFixture.productsDirectory.appendingPathComponent("widgetctl"),
            environment: sync.bus.environment, logDirectory: sync.bus.root,
            arguments: ["sync", "--user", user, "--timeout", "20000", "--attempts", "1"])
        let agent = try #require(sync.bus.running[.syncAgent])
        try sync.bus.waitUntil("sync-agent sends its request to intent-handler again", timeout: 10) {
            agent.log.contains("no answer yet: sending the request again")
        }
        return (intentHandler, request)
    }

    @Test func aRequestUnansweredWhileIntentHandlerIsFrozenIsAnsweredOnceItResumes() throws {
        let sync = try SyncFixture(.sqlite)
        try sync.startAgent()
        try sync.bus.send(.recordTension, user: "hana", body: #"{"level":3}"#)
        let (intentHandler, request) = try syncWaitingForFrozenIntentHandler(sync, user: "hana")
        kill(intentHandler, SIGCONT)
        try sync.bus.waitUntil("widgetctl sync exits", timeout: 15) { !request.isRunning }
        let result = try sync.bus.codec.decode(SyncResult.self, from: Data(request.output.utf8))
        #expect(result.pushed == 1, "the pass that waited goes on once intent-handler resumes: one record pushed")
        #expect(try sync.pending("hana").isEmpty)
        #expect(try sync.count("stress_check_ins") == 1)
    }

    @Test func itStopsWithinTwoSecondsWhileIntentHandlerIsFrozen() throws {
        let sync = try SyncFixture(.sqlite)
        try sync.startAgent()
        try sync.bus.send(.recordTension, user: "ines", body: #"{"level":3}"#)
        let (intentHandler, request) = try syncWaitingForFrozenIntentHandler(sync, user: "ines")
        defer { kill(intentHandler, SIGCONT) }
        let agent = try #require(sync.bus.running[.syncAgent])
        let started = ContinuousClock.now
        #expect(agent.terminate(within: 5) == 0, "SIGTERM ends sync-agent with status 0")
        let stop = ContinuousClock.now - started
        #expect(stop < .seconds(2), "stopped in \(stop)")
        request.kill9()
    }
}

// MARK: - Fixture

/// A bus with intent-handler running and a sync target (a fresh PostgreSQL database on the suite's
/// server, or the SQLite default under the data directory); sync-agent started on demand.
final class SyncFixture {
    let bus: BusFixture
    let kind: SyncAgentTests.TargetKind
    let server: PostgresServer?
    let database: String
    private var agentEnvironment: [String: String]

    init(_ kind: SyncAgentTests.TargetKind) throws {
        self.kind = kind
        bus = try BusFixture()
        database = "sync_" + UUID().uuidString.prefix(8).lowercased()
        // Sweeps and retries stay out of the way: the tests drive passes with `widgetctl sync`.
        agentEnvironment = [
            "WIDGETBUS_SYNC_INTERVAL": "3600", "WIDGETBUS_SYNC_BACKOFF_BASE": "3600", "WIDGETBUS_SYNC_BACKOFF_CAP": "3600",
        ]
        switch kind {
        case .postgres:
            let server = try PostgresServer.shared()
            try server.createDatabase(database)
            self.server = server
            agentEnvironment["WIDGETBUS_SYNC_DATABASE_URL"] = server.url(database: database)
        case .sqlite:
            server = nil
        }
        try bus.start(.intentHandler)
    }

    func startAgent(_ extra: [String: String] = [:]) throws {
        try bus.start(.syncAgent, extraEnvironment: agentEnvironment.merging(extra) { $1 })
    }

    /// `widgetctl sync`: its exit status and the result it printed.
    func sync(_ user: String) throws -> (status: Int32, result: SyncResult?) {
        let result = try bus.widgetctl("sync", "--user", user)
        return (result.status, try? bus.codec.decode(SyncResult.self, from: result.stdoutData))
    }

    func status(user: String?) throws -> [SyncResult] {
        let result = try bus.widgetctl(["sync-status"] + (user.map { ["--user", $0] } ?? []))
        guard result.status == 0 else { throw FixtureError.commandFailed(result) }
        return try bus.codec.decode(SyncStatusBody.self, from: result.stdoutData).results
    }

    func pending(_ user: String) throws -> [RevisedRecord] {
        let result = try bus.widgetctl("pending", "--user", user)
        guard result.status == 0 else { throw FixtureError.commandFailed(result) }
        return try bus.codec.decode(PendingRecordsBody.self, from: result.stdoutData).records
    }

    /// Records a level-10 check-in (which opens a suggestion) and returns its id.
    func recordSevereTension(user: String) throws -> String {
        let record = try bus.send(.recordTension, user: user, body: #"{"level":10}"#)
        guard case .tensionCheck(let state) = record.state, case .suggestion(_, let checkIn) = state.phase else {
            throw FixtureError.timedOut("no suggestion after a level-10 check-in")
        }
        return checkIn.id
    }

    // MARK: Diet and Jitter records

    /// Diet: `UpdateNutrition`, `UpdateRecentFoods`, then `QuickLogFoodIntent` `count` times; returns the food logs
    /// created. Skipped (0) while the message catalog does not have the Diet intents yet.
    func quickLogFoods(user: String, count: Int) throws -> Int {
        guard MessageType(rawValue: "QuickLogFoodIntent") != nil, MessageType(rawValue: "UpdateRecentFoods") != nil else {
            Self.note("Diet intents are not in the message catalog yet: food_logs assertions skipped")
            return 0
        }
        let foods = #"{"foods":[{"id":"oats","name":"Oats","calories":150,"protein":5,"carbs":27,"fat":3,"defaultQuantity":1,"unit":"bowl"}]}"#
        // A quick log needs the app's totals first (`not_synced` otherwise), as the widget shows no
        // button before them.
        try expectSuccess(bus.sendRaw("UpdateNutrition", user: user, body: #"{"calories":0,"protein":0,"carbs":0,"fat":0}"#))
        try expectSuccess(bus.sendRaw("UpdateRecentFoods", user: user, body: foods))
        for _ in 0..<count {
            try expectSuccess(bus.sendRaw("QuickLogFoodIntent", user: user, body: #"{"foodId":"oats"}"#))
        }
        return count
    }

    /// Jitter: `StartDrinkIntent` then `CompleteDrinkIntent {sessionId}`, `count` times; returns
    /// the finished drinks created. Skipped (0) while the catalog does not have the Jitter intents.
    func finishDrinks(user: String, count: Int) throws -> Int {
        guard MessageType(rawValue: "StartDrinkIntent") != nil, MessageType(rawValue: "CompleteDrinkIntent") != nil else {
            Self.note("Jitter intents are not in the message catalog yet: drink_sessions assertions skipped")
            return 0
        }
        for _ in 0..<count {
            let started = try expectSuccess(bus.sendRaw("StartDrinkIntent", user: user))
            guard let sessionId = Self.sessionID(in: started) else {
                Issue.record("no drink session id in the StartDrinkIntent reply: \(started)")
                throw FixtureError.timedOut("drink session id")
            }
            try expectSuccess(bus.sendRaw("CompleteDrinkIntent", user: user, body: #"{"sessionId":"\#(sessionId)"}"#))
        }
        return count
    }

    @discardableResult
    private func expectSuccess(_ result: CommandResult) throws -> JSONValue {
        guard result.status == 0 else {
            Issue.record("intent failed (\(result.status)): \(result.stdout) \(result.stderr)")
            throw FixtureError.commandFailed(result)
        }
        return try bus.codec.decode(JSONValue.self, from: result.stdoutData)
    }

    /// The id of the open drink session anywhere in a reply: `session.id` or `sessionId`.
    private static func sessionID(in value: JSONValue) -> String? {
        switch value {
        case .object(let object):
            if case .string(let id)? = object["sessionId"] { return id }
            if case .string(let id)? = object["session"]?["id"] { return id }
            return object.values.lazy.compactMap(sessionID).first
        case .array(let array):
            return array.lazy.compactMap(sessionID).first
        default:
            return nil
        }
    }

    private static func note(_ text: String) {
        FileHandle.standardError.write(Data("note: \(text)\n".utf8))
    }

    // MARK: The target

    func count(_ table: String) throws -> Int {
        Int(try target("SELECT count(*) FROM \(table)").first?.first ?? "") ?? -1
    }

    /// Rows of `sql` at the target, every value as text.
    func target(_ sql: String) throws -> [[String]] {
        switch kind {
        case .postgres:
            return try server!.rows(sql, database: database)
        case .sqlite:
            let path = bus.root.appendingPathComponent("data/sync-target.sqlite").path
            guard FileManager.default.fileExists(atPath: path) else { return [] }
            var configuration = Configuration()
            configuration.readonly = true
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            return try queue.read { db in
                try Row.fetchAll(db, sql: sql).map { row in
                    row.databaseValues.map { value in
                        switch value.storage {
                        case .null: ""
                        case .int64(let integer): "\(integer)"
                        case .double(let double): "\(double)"
                        case .string(let string): string
                        case .blob(let data): data.base64EncodedString()
                        }
                    }
                }
            }
        }
    }
}

/// A SUB socket on sync-agent's publisher.
/// A subscriber to sync-agent's `SyncCompleted` events of one topic.
final class SyncEventSubscriber {
    private let context: ZMQContext
    private let socket: ZMQSocket
    private let codec = WireCodec()

    /// Subscribes to `topic` and waits for the publisher's first heartbeat: from then on the
    /// subscription is in place, and nothing published is missed.
    init(endpoint: String, topic: String) throws {
        context = try ZMQContext()
        socket = try ZMQSocket(context: context, type: .sub)
        try socket.setLinger(milliseconds: 0)
        try socket.subscribe(topic)
        try socket.subscribe(Topic.heartbeat)
        try socket.connect(endpoint)
        guard try receive(heartbeat: true, timeout: 10) != nil else { throw FixtureError.timedOut("sync-agent's heartbeat") }
    }

    deinit {
        socket.close()
        context.terminate()
    }

    func next(timeout: Double) throws -> Envelope<SyncCompletedBody>? {
        try receive(heartbeat: false, timeout: timeout).map { try codec.decode(Envelope<SyncCompletedBody>.self, from: $0) }
    }

    /// The payload of the next heartbeat, or of the next event, within `timeout` seconds.
    private func receive(heartbeat: Bool, timeout: Double) throws -> Data? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            guard try ZMQPoller.isReadable(socket, waitingMilliseconds: 100), let frames = try socket.receiveMessage(), frames.count == 2 else {
                continue
            }
            if (frames[0] == Data(Topic.heartbeat.utf8)) == heartbeat { return frames[1] }
        }
        return nil
    }
}
