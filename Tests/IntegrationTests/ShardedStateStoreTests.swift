import Foundation
import Testing
import WidgetBusProtocol
import WidgetDomain

/// Two intent-handler shards sharing one real PostgreSQL store: each serves the users of the
/// slots it holds a lease on, sends the others to their owner (`wrong_shard`), takes a dead
/// shard's slots within its lease and a renewal, and a shard whose lease was taken while it was
/// paused can no longer write (fencing). widgetctl and app-gateway follow the redirect.
@Suite(.serialized, .postgresServer, .blockingThreads)
struct ShardedStateStoreTests {
    /// Shards `a` and `b`, each a bus of its own (ports, data folder) on `database`, once each
    /// holds its even share of the slots.
    struct TwoShards {
        let a: BusFixture
        let b: BusFixture
        let server: PostgresServer
        let database: String

        /// `a` may be a bus already running other services (app-gateway's).
        init(database: String, a: BusFixture? = nil) throws {
            self.a = try a ?? BusFixture()
            b = try BusFixture()
            let a = self.a
            server = try a.keepState(inPostgresDatabase: database)
            b.environment["WIDGETBUS_STATE_STORE"] = a.environment["WIDGETBUS_STATE_STORE"]
            self.database = database
            a.environment["WIDGETBUS_SHARD_NAME"] = "a"
            b.environment["WIDGETBUS_SHARD_NAME"] = "b"
            try a.start(.intentHandler)
            try b.start(.intentHandler)
            try a.waitUntil("a and b hold 128 slots each", timeout: 15) { try slotsByOwner() == ["a": 128, "b": 128] }
        }

        func slotsByOwner() throws -> [String: Int] {
            var counts: [String: Int] = [:]
            for row in try server.rows("SELECT coalesce(owner, '-'), count(*) FROM widgetbus.slot_lease GROUP BY 1", database: database) {
                counts[row[0]] = Int(row[1])
            }
            return counts
        }

        func owner(of user: String) throws -> String {
            try server.psql("SELECT coalesce(owner, '-') FROM widgetbus.slot_lease WHERE slot = \(UserSlot(user: user).index)", database: database)
        }

        /// A user whose slot `shard` holds, of those `candidate` names.
        func user(on shard: String, _ candidate: (Int) -> String = { "user-\($0)" }) throws -> String {
            for user in (0..<1_000).map(candidate) where try owner(of: user) == shard { return user }
            throw FixtureError.timedOut("no user on shard \(shard)")
        }
    }

    /// What a shard answers a request sent to it alone, as a client that does not follow
    /// redirects sees it.
    func errorReply(from shard: BusFixture, _ type: MessageType, user: String, body: String) throws -> ErrorBody? {
        let client = try RawClient(endpoint: shard.endpoint(.intents))
        return try client.errorReply(toJSON: RawClient.envelope(type: type.rawValue, user: user, body: body))?.body
    }

    @Test func eachShardServesItsSlotsAndSendsTheOthersToTheirOwner() throws {
        let shards = try TwoShards(database: "shards_split")
        let alice = try shards.user(on: "a")

        let refused = try #require(try errorReply(from: shards.b, .recordTension, user: alice, body: #"{"level":3}"#))
        #expect(refused.code == .wrongShard, "\(refused)")
        #expect(refused.redirect == ShardRedirect(slot: UserSlot(user: alice), shard: "a", endpoint: shards.a.endpoint(.intents)))
        #expect(refused.message.contains("owned by shard a"), "\(refused.message)")
        #expect(try shards.server.psql("SELECT count(*) FROM widgetbus.widget_state", database: shards.database) == "0", "b changed nothing")

        let recorded = try shards.a.send(.recordTension, user: alice, body: #"{"level":3}"#)
        #expect(recorded.version > 0)
        let bob = try shards.user(on: "b")
        #expect(try errorReply(from: shards.a, .recordTension, user: bob, body: #"{"level":5}"#)?.redirect?.shard == "b")
        #expect(try shards.server.psql("SELECT count(*) FROM widgetbus.widget_state", database: shards.database) == "1")
    }

    @Test func aSecondProcessUnderAShardsNameDoesNotStartAndTakesNothing() throws {
        let shards = try TwoShards(database: "shards_name")
        let twin = try BusFixture()
        twin.environment["WIDGETBUS_STATE_STORE"] = shards.a.environment["WIDGETBUS_STATE_STORE"]
        twin.environment["WIDGETBUS_SHARD_NAME"] = "a"
        let process = try ServiceProcess(
            name: "intent-handler", executable: BusFixture.productsDirectory.appendingPathComponent("intent-handler"),
            environment: twin.environment, logDirectory: twin.root)
        try twin.waitUntil("the second a gives up", timeout: 20) { !process.isRunning }
        #expect(process.terminate() == 1)
        #expect(process.log.contains("another intent-handler, alive, is shard a"), "\(process.log)")
        #expect(try shards.slotsByOwner() == ["a": 128, "b": 128], "a kept its slots")
        let alice = try shards.user(on: "a")
        #expect(try shards.a.send(.recordTension, user: alice, body: #"{"level":3}"#).version > 0, "a still serves its users")
    }

    @Test func widgetctlSendsARequestWhereWrongShardPointsIt() throws {
        let shards = try TwoShards(database: "shards_widgetctl")
        let alice = try shards.user(on: "a")
        let recorded = try shards.b.send(.recordTension, user: alice, body: #"{"level":3}"#)
        #expect(recorded.version > 0)
        #expect(
            try shards.server.psql("SELECT version FROM widgetbus.widget_state WHERE user_id = '\(alice)'", database: shards.database)
                == "\(recorded.version)", "a, the owner, stored it")
    }

    @Test func appGatewaySendsAnIntentWhereWrongShardPointsIt() async throws {
        let gateway = try GatewayFixture(services: [])
        let shards = try TwoShards(database: "shards_gateway", a: gateway.bus)
        // The gateway sends to a; a subject whose user b owns.
        let subject = try #require(try (0..<1_000).map { "s\($0)" }.first { try shards.owner(of: GatewayFixture.user($0)) == "b" })
        let answer = try await gateway.tap(subject, MessageType.recordTension.rawValue, #"{"level":5}"#)
        #expect(answer.status == 200, "\(answer.text)")
        let stored = try shards.server.psql(
            "SELECT count(*) FROM widgetbus.widget_state WHERE user_id = '\(GatewayFixture.user(subject))'", database: shards.database)
        #expect(stored == "1")
    }

    @Test func aKilledShardsUsersMoveToTheOtherWithinItsLeaseAndNoVersionGoesBack() throws {
        let shards = try TwoShards(database: "shards_kill")
        let carol = try shards.user(on: "a")
        let suggested = try shards.a.send(.recordTension, user: carol, body: #"{"level":10}"#)
        guard case .tensionCheck(let state) = suggested.state, case .suggestion(_, let checkIn) = state.phase else {
            Issue.record("expected a suggestion")
            return
        }
        // b's own stream is far behind a's: its sequence must still not give carol an older version.
        let dave = try shards.user(on: "b")
        try shards.b.send(.recordTension, user: dave, body: #"{"level":3}"#)

        shards.a.kill9(.intentHandler)
        let killed = Date()
        // Asked of b alone: widgetctl would follow b's redirects to a, dead, and wait for it.
        let client = try RawClient(endpoint: shards.b.endpoint(.intents))
        var done: StateRecord?
        var last = ""
        do {
            try shards.b.waitUntil("b serves a's users", timeout: 15) {
                let request = RawClient.envelope(
                    type: MessageType.markInterventionDone.rawValue, user: carol, body: #"{"checkInId":"\#(checkIn.id)"}"#)
                let reply = try #require(try client.exchange([Data(request.utf8)])?.first)
                last = String(decoding: reply, as: UTF8.self)
                done = try? shards.b.codec.decode(Envelope<StateRecord>.self, from: reply).body
                return done != nil
            }
        } catch {
            Issue.record("b's last answer: \(last)")
            throw error
        }
        let moved = Date().timeIntervalSince(killed)
        // The documented bound is the lease (3 s) and one renewal (1 s); a loaded machine gets more slack.
        #expect(moved < 8, "a's users waited \(moved) s")
        let record = try #require(done)
        guard case .tensionCheck(let doneState) = record.state, case .completed = doneState.phase else {
            Issue.record("b did not continue from a's state: \(record.state)")
            return
        }
        #expect(record.version > suggested.version, "carol's version went from \(suggested.version) to \(record.version)")
        #expect(try shards.slotsByOwner() == ["b": 256])
        let pending = try shards.b.pendingRecords(user: carol)
        guard pending.count == 1, case .tensionCheckIn(let record) = pending[0] else {
            Issue.record("expected a's check-in, completed by b: \(pending)")
            return
        }
        #expect(record.interventionCompleted && record.tensionLevel == 10)
    }

    @Test func aPausedOwnerWhoseLeaseWasTakenRefusesItsUsersThenRejoins() throws {
        let shards = try TwoShards(database: "shards_pause")
        let erin = try shards.user(on: "a")
        let first = try shards.a.send(.recordTension, user: erin, body: #"{"level":3}"#)
        let paused = try #require(shards.a.running[.intentHandler])
        kill(paused.pid, SIGSTOP)
        // An intent for erin waits for a while a is paused.
        let waiting = try RawClient(endpoint: shards.a.endpoint(.intents))
        try waiting.send([Data(RawClient.envelope(type: MessageType.recordTension.rawValue, user: erin, body: #"{"level":5}"#).utf8)])
        try shards.b.waitUntil("b took a's slots", timeout: 15) { try shards.owner(of: erin) == "b" }
        let taken = try shards.b.send(.recordTension, user: erin, body: #"{"level":7}"#)
        kill(paused.pid, SIGCONT)

        let answer = try #require(try waiting.receive()?.first, "a answers once resumed")
        let refused = try shards.a.codec.decode(Envelope<ErrorBody>.self, from: answer).body
        #expect(refused.code == .wrongShard && refused.redirect?.shard == "b", "a, its lease taken, refused the intent: \(refused)")
        let levels = try shards.b.pendingRecords(user: erin).compactMap { record -> Int? in
            guard case .tensionCheckIn(let checkIn) = record else { return nil }
            return checkIn.tensionLevel
        }
        #expect(levels.sorted() == [3, 7], "a wrote nothing after its lease was taken")
        #expect(try shards.b.storedState(.tensionCheck, user: erin)?.version == taken.version)
        #expect(taken.version > first.version)
        try shards.a.waitUntil("a rejoins with its share", timeout: 15) { try shards.slotsByOwner() == ["a": 128, "b": 128] }
    }
}
