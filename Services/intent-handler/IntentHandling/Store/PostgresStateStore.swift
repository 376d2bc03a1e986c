import Foundation
import Logging
import Metrics
import Observability
import PostgresNIO
import PostgresStorage
import WidgetBusProtocol
import WidgetDomain

/// The state store in PostgreSQL, in a schema of its own (`widgetbus`), so it may share a
/// database with sync-agent's target tables. The same tables as ``SQLiteStateStore``; a column
/// named `user` there is `user_id` here (`user` is reserved in PostgreSQL), and sequences and
/// versions, unsigned in Swift, are stored as `bigint`.
///
/// A transaction is acknowledged once PostgreSQL's COMMIT returns: with the server's default
/// `synchronous_commit = on` that is after its log reached its own disk, and with a synchronous
/// standby (`synchronous_standby_names`) after the standby has it too (docs/SCALING.md). One
/// connection, used from the bus thread, every statement waited for; a request's writes go
/// together as one statement (``PostgresStateTransaction``).
///
/// The store is shared by the intent-handler shards of a deployment, each owning a share of the
/// users' slots through leases (``SlotLeases``) and keeping an event sequence of its own, named
/// for the shard.
final class PostgresStateStore: StateStore {
    private let connection: BlockingPostgresConnection
    private let codec: WireCodec
    private let leases: SlotLeases
    let location: String
    /// `widgetbus_store_commit_duration_seconds{store="intent-handler"}`, as the SQLite store's.
    private let commits = Timer(MetricCatalog.storeCommitDuration, ["store": "intent-handler"])

    /// Connects to `url`, creates the schema when it is missing, and takes `shard`'s first slots.
    init(url: PostgresURL, shard: ShardIdentity, codec: WireCodec, logger: Logger) throws {
        leases = SlotLeases(shard: shard, logger: logger)
        do {
            // A transaction left open by a paused or cut-off shard holds its lease rows, which no
            // other shard can take meanwhile: the server ends it well within a lease.
            connection = try BlockingPostgresConnection(
                url: url, logger: logger, idleInTransactionTimeout: .milliseconds(Int64(min(10, shard.lease / 2) * 1000)))
            try connection.transaction { connection in
                // Two intent-handlers starting together would race on CREATE … IF NOT EXISTS.
                try connection.run("SELECT pg_advisory_xact_lock(7239011)")
                for statement in Self.schema + SlotLeases.schema { try connection.run(PostgresQuery(unsafeSQL: statement)) }
                // A new shard's sequence starts above every version given so far.
                try connection.run(
                    """
                    INSERT INTO widgetbus.bus_sequence (name, value)
                    SELECT \(shard.name), coalesce(max(value), 0) FROM widgetbus.bus_sequence ON CONFLICT DO NOTHING
                    """)
            }
            try leases.claimName(on: connection)
            try leases.maintain(on: connection)
        } catch {
            throw Failure(description: "the state store \(url.redacted) cannot be used: \(PostgresErrorText.describe(error))")
        }
        self.codec = codec
        location = url.redacted
        let synchronousCommit = try? connection.transaction { try $0.run("SHOW synchronous_commit").first?.decode(String.self) }
        if let setting = synchronousCommit ?? nil, ["off", "local"].contains(setting) {
            logger.warning(
                "the state store's synchronous_commit is \(setting): an acknowledged intent can be lost to a crash of PostgreSQL or of its machine (docs/SCALING.md)")
        }
    }

    /// Why the store could not be opened or a transaction failed, safe to log and to reply.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private static let schema = [
        "CREATE SCHEMA IF NOT EXISTS widgetbus",
        """
        CREATE TABLE IF NOT EXISTS widgetbus.widget_state (
            user_id text NOT NULL, app text NOT NULL, version bigint NOT NULL, record bytea NOT NULL, PRIMARY KEY (user_id, app))
        """,
        """
        CREATE TABLE IF NOT EXISTS widgetbus.user_profile (
            user_id text PRIMARY KEY, time_zone text NOT NULL, version bigint NOT NULL)
        """,
        """
        CREATE TABLE IF NOT EXISTS widgetbus.pending_record (
            user_id text NOT NULL, collection text NOT NULL, id text NOT NULL, revision bigint NOT NULL, record bytea NOT NULL,
            pending_since double precision, PRIMARY KEY (user_id, collection, id))
        """,
        "CREATE INDEX IF NOT EXISTS pending_record_age ON widgetbus.pending_record (pending_since)",
        """
        CREATE TABLE IF NOT EXISTS widgetbus.handled_request (
            id text PRIMARY KEY, user_id text, type text NOT NULL, reply bytea NOT NULL, handled_at double precision NOT NULL)
        """,
        "CREATE INDEX IF NOT EXISTS handled_request_age ON widgetbus.handled_request (handled_at)",
        "CREATE TABLE IF NOT EXISTS widgetbus.user_push_tokens (user_id text PRIMARY KEY, version bigint NOT NULL, tokens bytea NOT NULL)",
        // One row per shard, named for it.
        "CREATE TABLE IF NOT EXISTS widgetbus.bus_sequence (name text PRIMARY KEY, value bigint NOT NULL)",
    ]

    var slotsTaken: Int { leases.taken }
    var leaseRenewalInterval: TimeInterval? { leases.shard.renewalInterval }

    func maintainLeases() throws {
        do {
            try leases.claimName(on: connection)
            try leases.maintain(on: connection)
        } catch {
            throw Failure(description: PostgresErrorText.describe(error))
        }
    }

    func write<T>(_ body: (any StateTransaction) throws -> T) throws -> T {
        let start = DispatchTime.now()
        defer { commits.recordInterval(since: start) }
        do {
            return try connection.transaction { connection in
                let transaction = PostgresStateTransaction(connection: connection, leases: leases, codec: codec)
                let result = try body(transaction)
                try transaction.sendWrites()
                return result
            }
        } catch {
            throw Failure(description: PostgresErrorText.describe(error))
        }
    }

    func pendingBacklog() throws -> (records: Int, oldest: Date?) {
        try connection.transaction { connection in
            let row = try connection.run("SELECT count(*), min(pending_since) FROM widgetbus.pending_record").first
            let (records, oldest) = try row?.decode((Int64, Double?).self) ?? (Int64(0), nil)
            return (Int(records), oldest.map(Date.init(timeIntervalSince1970:)))
        }
    }

    func pruneHandledRequests(olderThan date: Date) throws -> Int {
        try connection.transaction { connection in
            try connection.changes("DELETE FROM widgetbus.handled_request WHERE handled_at < \(date.timeIntervalSince1970)")
        }
    }
}

/// One transaction of a ``PostgresStateStore``. Every statement is a round trip to the server,
/// so writes are not sent one by one: they wait in the transaction and go as one statement
/// (data-modifying `WITH` parts) when the request that made them ends, before a read, and
/// before the commit. A request whose change throws discards its writes unsent, which is its
/// savepoint; a real SAVEPOINT is taken only when a request must send something before it ends
/// (a write whose result it reads). A write the server refuses fails the whole transaction.
private final class PostgresStateTransaction: StateTransaction {
    let connection: BlockingPostgresConnection
    let leases: SlotLeases
    let codec: WireCodec
    /// Writes not sent yet, by the row they write: a later write of the same row replaces an
    /// earlier one (one statement cannot change a row twice).
    private var writes: [(row: [String], statement: Statement)] = []
    private var inRequest = false
    private var savepointTaken = false
    /// The ids ``startBurst(ids:users:)`` was told of, and the replies kept for them,
    /// with the ones this transaction stored since: an id asked for twice in a burst finds its
    /// first request's reply.
    private var prefetchedIDs: Set<String> = []
    private var prefetched: [String: (user: String?, type: String, reply: Data)] = [:]

    /// A write's SQL, given the placeholders its values take in the combined statement.
    typealias Statement = (inout Placeholders) throws -> String

    init(connection: BlockingPostgresConnection, leases: SlotLeases, codec: WireCodec) {
        self.connection = connection
        self.leases = leases
        self.codec = codec
    }

    private func write(_ row: [String], _ statement: @escaping Statement) {
        if let index = writes.firstIndex(where: { $0.row == row }) {
            writes[index].statement = statement
        } else {
            writes.append((row, statement))
        }
    }

    /// Sends the writes waiting, as one statement.
    func sendWrites() throws {
        guard !writes.isEmpty else { return }
        try takeSavepointInRequest()
        var placeholders = Placeholders()
        let parts = try writes.map { try $0.statement(&placeholders) }
        writes.removeAll(keepingCapacity: true)
        let sql = parts.count == 1 ? parts[0] : "WITH " + parts.enumerated().map { "w\($0) AS (\($1))" }.joined(separator: ", ") + " SELECT 1"
        try connection.run(PostgresQuery(unsafeSQL: sql, binds: placeholders.binds))
    }

    /// A read sees every write before it.
    private func read(_ query: PostgresQuery) throws -> PostgresQueryResult {
        try sendWrites()
        return try connection.run(query)
    }

    private func takeSavepointInRequest() throws {
        guard inRequest, !savepointTaken else { return }
        try connection.run("SAVEPOINT request")
        savepointTaken = true
    }

    func lockSequence() throws -> UInt64 {
        let row = try read("SELECT value FROM widgetbus.bus_sequence WHERE name = \(leases.shard.name) FOR UPDATE").first
        return UInt64(try row?.decode(Int64.self) ?? 0)
    }

    func saveSequence(_ sequence: UInt64) throws {
        let shard = leases.shard.name
        write(["sequence"]) { "UPDATE widgetbus.bus_sequence SET value = \(try $0(Int64(sequence))) WHERE name = \(try $0(shard))" }
    }

    func redirects(for users: () -> Set<String>) throws -> [String: ShardRedirect]? {
        try sendWrites()
        return try leases.redirects(for: users(), on: connection)
    }

    /// One statement: the sequence row `FOR UPDATE`, the users' lease rows `FOR SHARE` (in that
    /// order, as ``lockSequence()`` and ``redirects(for:)`` take them), and the replies kept for
    /// the ids, as rows of one shape told apart by their first column.
    func startBurst(ids: () -> [String], users: () -> Set<String>) throws -> (sequence: UInt64, redirects: [String: ShardRedirect]?) {
        try sendWrites()
        let (ids, users) = (ids(), users())
        let rows = try connection.run(
            PostgresQuery(
                unsafeSQL: """
                    WITH sequence AS (SELECT value FROM widgetbus.bus_sequence WHERE name = $1 FOR UPDATE),
                    lease AS (\(SlotLeases.leaseQuery(slots: "$2"))),
                    handled AS (SELECT id, user_id, type, reply FROM widgetbus.handled_request WHERE id = ANY($3))
                    SELECT 0, value, NULL::integer, NULL::text, NULL::bigint, NULL::boolean, NULL::text, NULL::text, NULL::bytea FROM sequence
                    UNION ALL SELECT 1, NULL, slot, owner, epoch, current, endpoint, NULL, NULL FROM lease
                    UNION ALL SELECT 2, NULL, NULL, id, NULL, NULL, user_id, type, reply FROM handled
                    """,
                binds: {
                    var binds = PostgresBindings()
                    binds.append(leases.shard.name)
                    binds.append(SlotLeases.slots(of: users))
                    binds.append(ids)
                    return binds
                }()))
        var sequence: UInt64 = 0
        var leaseRows: [SlotLeases.LeaseRow] = []
        for row in rows {
            let (part, value, slot, text, epoch, current, otherText, type, reply) =
                try row.decode((Int32, Int64?, Int32?, String?, Int64?, Bool?, String?, String?, Data?).self)
            switch part {
            case 0: sequence = UInt64(value ?? 0)
            case 1: leaseRows.append((slot ?? 0, text, epoch ?? 0, current ?? false, otherText))
            default: if let id = text, let type, let reply { prefetched[id] = (otherText, type, reply) }
            }
        }
        prefetchedIDs = Set(ids)
        return (sequence, leases.redirects(for: users, leases: leaseRows))
    }

    func handledRequest(id: String) throws -> (user: String?, type: String, reply: Data)? {
        if prefetchedIDs.contains(id) { return prefetched[id] }
        return try read("SELECT user_id, type, reply FROM widgetbus.handled_request WHERE id = \(id)").first
            .map { try $0.decode((String?, String, Data).self) }
    }

    func saveHandledRequest(id: String, user: String?, type: String, reply: Data, at date: Date) throws {
        if prefetchedIDs.contains(id) { prefetched[id] = (user, type, reply) }
        write(["handled_request", id]) {
            """
            INSERT INTO widgetbus.handled_request (id, user_id, type, reply, handled_at)
            VALUES (\(try $0(id)), \(try $0(user)), \(try $0(type)), \(try $0(reply)), \(try $0(date.timeIntervalSince1970)))
            """
        }
    }

    func stateRow(user: String, app: WidgetApp) throws -> Data? {
        try read("SELECT record FROM widgetbus.widget_state WHERE user_id = \(user) AND app = \(app.rawValue)").first
            .map { try $0.decode(Data.self) }
    }

    func saveStateRow(user: String, app: WidgetApp, version: UInt64, record: Data) throws {
        write(["widget_state", user, app.rawValue]) {
            """
            INSERT INTO widgetbus.widget_state (user_id, app, version, record)
            VALUES (\(try $0(user)), \(try $0(app.rawValue)), \(try $0(Int64(version))), \(try $0(record)))
            ON CONFLICT (user_id, app) DO UPDATE SET version = excluded.version, record = excluded.record
            """
        }
    }

    func stateRows() throws -> [(user: String, app: String, record: Data)] {
        try read("SELECT user_id, app, record FROM widgetbus.widget_state ORDER BY user_id COLLATE \"C\", app COLLATE \"C\"")
            .map { try $0.decode((String, String, Data).self) }
    }

    func profile(user: String) throws -> UserProfile? {
        try read("SELECT time_zone, version FROM widgetbus.user_profile WHERE user_id = \(user)").first.map {
            let (timeZone, version) = try $0.decode((String, Int64).self)
            return UserProfile(user: user, timeZone: timeZone, version: UInt64(version))
        }
    }

    func saveProfile(_ profile: UserProfile) throws {
        write(["user_profile", profile.user]) {
            """
            INSERT INTO widgetbus.user_profile (user_id, time_zone, version)
            VALUES (\(try $0(profile.user)), \(try $0(profile.timeZone)), \(try $0(Int64(profile.version))))
            ON CONFLICT (user_id) DO UPDATE SET time_zone = excluded.time_zone, version = excluded.version
            """
        }
    }

    func profiles() throws -> [UserProfile] {
        try read("SELECT user_id, time_zone, version FROM widgetbus.user_profile ORDER BY user_id COLLATE \"C\"").map {
            let (user, timeZone, version) = try $0.decode((String, String, Int64).self)
            return UserProfile(user: user, timeZone: timeZone, version: UInt64(version))
        }
    }

    func pushTokensRow(user: String) throws -> (version: UInt64, tokens: Data)? {
        try read("SELECT version, tokens FROM widgetbus.user_push_tokens WHERE user_id = \(user)").first.map {
            let (version, tokens) = try $0.decode((Int64, Data).self)
            return (UInt64(version), tokens)
        }
    }

    func savePushTokensRow(user: String, version: UInt64, tokens: Data) throws {
        write(["user_push_tokens", user]) {
            """
            INSERT INTO widgetbus.user_push_tokens (user_id, version, tokens) VALUES (\(try $0(user)), \(try $0(Int64(version))), \(try $0(tokens)))
            ON CONFLICT (user_id) DO UPDATE SET version = excluded.version, tokens = excluded.tokens
            """
        }
    }

    func pushTokensRows() throws -> [(user: String, version: UInt64, tokens: Data)] {
        try read("SELECT user_id, version, tokens FROM widgetbus.user_push_tokens ORDER BY user_id COLLATE \"C\"").map {
            let (user, version, tokens) = try $0.decode((String, Int64, Data).self)
            return (user, UInt64(version), tokens)
        }
    }

    func savePendingRecordRow(user: String, collection: String, id: String, revision: UInt64, record: Data, at date: Date) throws {
        write(["pending_record", user, collection, id]) {
            """
            INSERT INTO widgetbus.pending_record (user_id, collection, id, revision, record, pending_since)
            VALUES (\(try $0(user)), \(try $0(collection)), \(try $0(id)), \(try $0(Int64(revision))), \(try $0(record)),
                \(try $0(date.timeIntervalSince1970)))
            ON CONFLICT (user_id, collection, id) DO UPDATE SET revision = excluded.revision, record = excluded.record,
                pending_since = coalesce(pending_record.pending_since, excluded.pending_since)
            """
        }
    }

    func pendingRecordRows(user: String) throws -> [(revision: UInt64, record: Data)] {
        try read("SELECT revision, record FROM widgetbus.pending_record WHERE user_id = \(user) ORDER BY collection COLLATE \"C\", id COLLATE \"C\"").map {
            let (revision, record) = try $0.decode((Int64, Data).self)
            return (UInt64(revision), record)
        }
    }

    func pendingUsers() throws -> [String] {
        try read("SELECT user_id FROM widgetbus.pending_record GROUP BY user_id ORDER BY user_id COLLATE \"C\"").map { try $0.decode(String.self) }
    }

    func clearPendingRecord(user: String, collection: String, id: String, revision: UInt64) throws -> Bool {
        try sendWrites()
        try takeSavepointInRequest()
        return try connection.changes(
            """
            DELETE FROM widgetbus.pending_record
            WHERE user_id = \(user) AND collection = \(collection) AND id = \(id) AND revision = \(Int64(revision))
            """) > 0
    }

    func inSavepoint<T>(_ body: () throws -> T) throws -> T {
        try sendWrites()
        (inRequest, savepointTaken) = (true, false)
        defer { inRequest = false }
        do {
            let result = try body()
            // The request's own statement needs no savepoint: if the server refuses it, the
            // whole transaction fails.
            inRequest = savepointTaken
            try sendWrites()
            if savepointTaken { try connection.run("RELEASE SAVEPOINT request") }
            return result
        } catch {
            writes.removeAll()
            if savepointTaken {
                try connection.run("ROLLBACK TO SAVEPOINT request")
                try connection.run("RELEASE SAVEPOINT request")
            }
            throw error
        }
    }
}

/// The `$n` placeholders of one statement and the values bound to them.
struct Placeholders {
    private(set) var binds = PostgresBindings()

    /// Binds `value` and returns its placeholder.
    mutating func callAsFunction<Value: PostgresThrowingDynamicTypeEncodable>(_ value: Value) throws -> String {
        try binds.append(value)
        return "$\(binds.count)"
    }

    mutating func callAsFunction<Value: PostgresThrowingDynamicTypeEncodable>(_ value: Value?) throws -> String {
        try binds.append(value)
        return "$\(binds.count)"
    }
}
