import Foundation
import Testing
import WidgetBusProtocol

/// Two intent-handler shards on two hosts and PostgreSQL on a third — network namespaces on this
/// machine, joined by a bridge — under 1,000 intents/s from a client that follows `wrong_shard`
/// and resends what goes unanswered. Whatever happens to one shard's host, every acknowledged
/// intent is stored, none twice, and the other shard answers the moved users within the
/// failover time; a shard cut off or paused past its lease writes nothing once it is back, and
/// rejoins.
@Suite(.serialized, .blockingThreads, .enabled(if: TestNetwork.isAvailable, "needs root and iproute2 for network namespaces"))
struct MultiHostShardTests {
    /// PostgreSQL in this namespace (the database host), shards `h1` and `h2` on hosts of their own.
    final class Hosts {
        let network: TestNetwork
        let server: PostgresServer
        let root: URL
        let h1: TestNetwork.Host
        let h2: TestNetwork.Host
        private(set) var processes: [String: ServiceProcess] = [:]
        let database = "shards"

        init() throws {
            network = try TestNetwork()
            server = try PostgresServer(alsoListeningOn: network.gateway)
            try server.createDatabase(database)
            root = FileManager.default.temporaryDirectory.appendingPathComponent("widgetbus-hosts-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            h1 = try network.addHost("h1")
            h2 = try network.addHost("h2")
            try start("h1", on: h1)
            try start("h2", on: h2)
            try waitUntil("h1 and h2 hold 128 slots each", timeout: 20) { try slotsByOwner() == ["h1": 128, "h2": 128] }
        }

        deinit {
            for process in processes.values { process.kill9() }
            server.remove()
            try? FileManager.default.removeItem(at: root)
        }

        func intents(_ host: TestNetwork.Host) -> String { "tcp://\(host.address):5560" }

        /// Starts shard `name` on `host`, serving beyond loopback in the clear (a test network).
        func start(_ name: String, on host: TestNetwork.Host) throws {
            var environment = ProcessInfo.processInfo.environment
            environment["WIDGETBUS_SHARD_NAME"] = name
            environment["WIDGETBUS_STATE_STORE"] = server.url(database: database, host: network.gateway)
            environment["WIDGETBUS_BIND_HOST"] = host.address
            environment["WIDGETBUS_INSECURE"] = "1"
            environment["WIDGETBUS_INTENTS"] = intents(host)
            environment["WIDGETBUS_STATE_EVENTS"] = "tcp://\(host.address):5561"
            environment["WIDGETBUS_STATE_SNAPSHOT"] = "tcp://\(host.address):5562"
            environment["WIDGETBUS_TIMELINE_LONGEST_LAG_MS"] = "0"
            environment["WIDGETBUS_DATA_DIR"] = root.appendingPathComponent(name).path
            environment["WIDGETBUS_LOG_LEVEL"] = "info"
            processes[name] = try network.start(
                name, BusFixture.productsDirectory.appendingPathComponent("intent-handler"), in: host, environment: environment,
                logDirectory: root)
        }

        func slotsByOwner() throws -> [String: Int] {
            var counts: [String: Int] = [:]
            for row in try server.rows("SELECT coalesce(owner, '-'), count(*) FROM widgetbus.slot_lease GROUP BY 1", database: database) {
                counts[row[0]] = Int(row[1])
            }
            return counts
        }

        var logs: String { processes.values.map(\.log).joined(separator: "\n----\n") }

        func waitUntil(_ what: String, timeout: Double, _ condition: () throws -> Bool) throws {
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                if (try? condition()) == true { return }
                usleep(100_000)
            }
            Issue.record("timed out after \(timeout) s waiting until \(what)\n\(logs)")
            throw FixtureError.timedOut(what)
        }

        /// Every acknowledged intent is stored, and none twice: each stored intent's reply is
        /// kept once (by its id) and added one check-in to its user's pending records; and each
        /// user's stored state is the last one acknowledged to them.
        func expectEveryAcknowledgedIntentStoredOnce(_ outcome: ShardedIntentLoad.Outcome, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let handled = Set(try server.psql("SELECT id FROM widgetbus.handled_request", database: database).split(separator: "\n").map(String.init))
            let lost = outcome.acknowledged.subtracting(handled)
            #expect(lost.isEmpty, "\(lost.count) acknowledged intents are not stored: \(lost.sorted().prefix(5))", sourceLocation: sourceLocation)
            #expect(handled.isSubset(of: Set(outcome.sent.keys)), "stored intents that were never sent", sourceLocation: sourceLocation)
            let checkIns = try server.psql(
                "SELECT count(*) FROM widgetbus.pending_record WHERE collection = 'stress_check_ins'", database: database)
            #expect(checkIns == "\(handled.count)", "one check-in per stored intent: \(checkIns) for \(handled.count)", sourceLocation: sourceLocation)
            #expect(outcome.refused.isEmpty, "refused: \(outcome.refused.prefix(5))", sourceLocation: sourceLocation)
            // No shard wrote a user's state after another had moved it on: the stored version is
            // the last one acknowledged.
            var stored: [String: UInt64] = [:]
            for row in try server.rows("SELECT user_id, version FROM widgetbus.widget_state WHERE app = 'tensionCheck'", database: database) {
                stored[row[0]] = UInt64(row[1])
            }
            let behind = outcome.versions.filter { stored[$0.key] != $0.value }
            #expect(behind.isEmpty, "\(behind.count) users' stored state is not their last acknowledged: \(behind.prefix(3)), stored \(behind.keys.prefix(3).map { stored[$0] })", sourceLocation: sourceLocation)
        }
    }

    static let users = (0..<500).map { "host-user-\($0)" }

    @Test func aShardHostTakenAwayUnderLoadLosesNoAcknowledgedIntent() throws {
        let hosts = try Hosts()
        let slotsOfH1 = Set(try hosts.server.psql("SELECT slot FROM widgetbus.slot_lease WHERE owner = 'h1'", database: hosts.database)
            .split(separator: "\n").compactMap { Int($0) })
        let moved = Set(Self.users.filter { slotsOfH1.contains(UserSlot(user: $0).index) })
        let load = try ShardedIntentLoad(endpoints: [hosts.intents(hosts.h1), hosts.intents(hosts.h2)])
        var killed: ContinuousClock.Instant?
        let outcome = try load.run(
            rate: 1_000, for: .seconds(10), users: Self.users,
            events: [(.seconds(3), { hosts.network.killEverything(in: hosts.h1); killed = .now })])
        #expect(outcome.acknowledged.count == outcome.sent.count, "every intent acknowledged in the end: \(outcome.acknowledged.count) of \(outcome.sent.count)")
        try hosts.expectEveryAcknowledgedIntentStoredOnce(outcome)
        #expect(try hosts.slotsByOwner() == ["h2": 256])
        // h2 answers h1's users once it took their slots: within the failover time (a lease and a
        // renewal, 4 s), and the client's wait before it resends (up to 2 s), some slack for a busy machine.
        let kill = try #require(killed)
        let firstMoved = outcome.acknowledgedAt
            .filter { moved.contains(outcome.sent[$0.key] ?? "") && $0.value.by == hosts.intents(hosts.h2) }.values.map(\.at).min()
        let waited = try #require(firstMoved, "no moved user answered after the kill") - kill
        #expect(waited < .seconds(8), "h1's users were first answered \(waited) after the kill\n\(hosts.logs)")
    }

    @Test func aShardPausedPastItsLeaseWritesNothingWhenResumedAndRejoins() throws {
        let hosts = try Hosts()
        let paused = try #require(hosts.processes["h1"]).pid
        let load = try ShardedIntentLoad(endpoints: [hosts.intents(hosts.h1), hosts.intents(hosts.h2)])
        let outcome = try load.run(
            rate: 1_000, for: .seconds(12), users: Self.users,
            events: [(.seconds(3), { kill(paused, SIGSTOP) }), (.seconds(9), { kill(paused, SIGCONT) })])
        #expect(outcome.acknowledged.count == outcome.sent.count, "every intent acknowledged in the end: \(outcome.acknowledged.count) of \(outcome.sent.count)")
        try hosts.expectEveryAcknowledgedIntentStoredOnce(outcome)
        #expect(hosts.logs.contains("lost slots"), "h1 found its leases gone once resumed")
        try hosts.waitUntil("h1 rejoins with its share", timeout: 20) { try hosts.slotsByOwner() == ["h1": 128, "h2": 128] }
    }

    @Test func aShardCutOffPastItsLeaseWritesNothingWhenItIsBackAndRejoins() throws {
        let hosts = try Hosts()
        let load = try ShardedIntentLoad(endpoints: [hosts.intents(hosts.h1), hosts.intents(hosts.h2)])
        let outcome = try load.run(
            rate: 1_000, for: .seconds(14), users: Self.users,
            events: [
                (.seconds(3), { try hosts.network.setConnected(hosts.h1, false) }),
                (.seconds(10), { try hosts.network.setConnected(hosts.h1, true) }),
            ])
        #expect(outcome.acknowledged.count == outcome.sent.count, "every intent acknowledged in the end: \(outcome.acknowledged.count) of \(outcome.sent.count)")
        try hosts.expectEveryAcknowledgedIntentStoredOnce(outcome)
        #expect(hosts.logs.contains("lost slots"), "h1 found its leases gone once it was back")
        try hosts.waitUntil("h1 rejoins with its share", timeout: 20) { try hosts.slotsByOwner() == ["h1": 128, "h2": 128] }
    }
}
