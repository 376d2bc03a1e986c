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
/// connection, used from the bus thread: every statement waits for its answer.
final class PostgresStateStore: StateStore {
    private let connection: BlockingPostgresConnection
    private let codec: WireCodec
    let location: String
    /// `widgetbus_store_commit_duration_seconds{store="intent-handler"}`, as the SQLite store's.
    private let commits = Timer(MetricCatalog.storeCommitDuration, ["store": "intent-handler"])

    /// Connects to `url` and creates the schema when it is missing.
    init(url: PostgresURL, codec: WireCodec, logger: Logger) throws {
        do {
            connection = try BlockingPostgresConnection(url: url, logger: logger)
            try connection.transaction { connection in
                // Two intent-handlers starting together would race on CREATE … IF NOT EXISTS.
                try connection.run("SELECT pg_advisory_xact_lock(7239011)")
                for statement in Self.schema { try connection.run(PostgresQuery(unsafeSQL: statement)) }
            }
        } catch {
            throw Failure(description: "the state store \(url.redacted) cannot be used: \(PostgresErrorText.describe(error))")
        }
        self.codec = codec
        location = url.redacted
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
        "CREATE TABLE IF NOT EXISTS widgetbus.bus_sequence (name text PRIMARY KEY, value bigint NOT NULL)",
        "INSERT INTO widgetbus.bus_sequence (name, value) VALUES ('state', 0) ON CONFLICT DO NOTHING",
    ]

    func write<T>(_ body: (any StateTransaction) throws -> T) throws -> T {
        let start = DispatchTime.now()
        defer { commits.recordInterval(since: start) }
        do {
            return try connection.transaction { connection in try body(PostgresStateTransaction(connection: connection, codec: codec)) }
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

/// One transaction of a ``PostgresStateStore``.
private struct PostgresStateTransaction: StateTransaction {
    let connection: BlockingPostgresConnection
    let codec: WireCodec

    func lastSequence() throws -> UInt64 {
        let row = try connection.run("SELECT value FROM widgetbus.bus_sequence WHERE name = 'state'").first
        return UInt64(try row?.decode(Int64.self) ?? 0)
    }

    func saveSequence(_ sequence: UInt64) throws {
        try connection.run("UPDATE widgetbus.bus_sequence SET value = \(Int64(sequence)) WHERE name = 'state'")
    }

    func handledRequest(id: String) throws -> (user: String?, type: String, reply: Data)? {
        try connection.run("SELECT user_id, type, reply FROM widgetbus.handled_request WHERE id = \(id)").first
            .map { try $0.decode((String?, String, Data).self) }
    }

    func saveHandledRequest(id: String, user: String?, type: String, reply: Data, at date: Date) throws {
        try connection.run(
            """
            INSERT INTO widgetbus.handled_request (id, user_id, type, reply, handled_at)
            VALUES (\(id), \(user), \(type), \(reply), \(date.timeIntervalSince1970))
            """)
    }

    func stateRow(user: String, app: WidgetApp) throws -> Data? {
        try connection.run("SELECT record FROM widgetbus.widget_state WHERE user_id = \(user) AND app = \(app.rawValue)").first
            .map { try $0.decode(Data.self) }
    }

    func saveStateRow(user: String, app: WidgetApp, version: UInt64, record: Data) throws {
        try connection.run(
            """
            INSERT INTO widgetbus.widget_state (user_id, app, version, record) VALUES (\(user), \(app.rawValue), \(Int64(version)), \(record))
            ON CONFLICT (user_id, app) DO UPDATE SET version = excluded.version, record = excluded.record
            """)
    }

    func stateRows() throws -> [(user: String, app: String, record: Data)] {
        try connection.run("SELECT user_id, app, record FROM widgetbus.widget_state ORDER BY user_id COLLATE \"C\", app COLLATE \"C\"")
            .map { try $0.decode((String, String, Data).self) }
    }

    func profile(user: String) throws -> UserProfile? {
        try connection.run("SELECT time_zone, version FROM widgetbus.user_profile WHERE user_id = \(user)").first.map {
            let (timeZone, version) = try $0.decode((String, Int64).self)
            return UserProfile(user: user, timeZone: timeZone, version: UInt64(version))
        }
    }

    func saveProfile(_ profile: UserProfile) throws {
        try connection.run(
            """
            INSERT INTO widgetbus.user_profile (user_id, time_zone, version) VALUES (\(profile.user), \(profile.timeZone), \(Int64(profile.version)))
            ON CONFLICT (user_id) DO UPDATE SET time_zone = excluded.time_zone, version = excluded.version
            """)
    }

    func profiles() throws -> [UserProfile] {
        try connection.run("SELECT user_id, time_zone, version FROM widgetbus.user_profile ORDER BY user_id COLLATE \"C\"").map {
            let (user, timeZone, version) = try $0.decode((String, String, Int64).self)
            return UserProfile(user: user, timeZone: timeZone, version: UInt64(version))
        }
    }

    func pushTokensRow(user: String) throws -> (version: UInt64, tokens: Data)? {
        try connection.run("SELECT version, tokens FROM widgetbus.user_push_tokens WHERE user_id = \(user)").first.map {
            let (version, tokens) = try $0.decode((Int64, Data).self)
            return (UInt64(version), tokens)
        }
    }

    func savePushTokensRow(user: String, version: UInt64, tokens: Data) throws {
        try connection.run(
            """
            INSERT INTO widgetbus.user_push_tokens (user_id, version, tokens) VALUES (\(user), \(Int64(version)), \(tokens))
            ON CONFLICT (user_id) DO UPDATE SET version = excluded.version, tokens = excluded.tokens
            """)
    }

    func pushTokensRows() throws -> [(user: String, version: UInt64, tokens: Data)] {
        try connection.run("SELECT user_id, version, tokens FROM widgetbus.user_push_tokens ORDER BY user_id COLLATE \"C\"").map {
            let (user, version, tokens) = try $0.decode((String, Int64, Data).self)
            return (user, UInt64(version), tokens)
        }
    }

    func savePendingRecordRow(user: String, collection: String, id: String, revision: UInt64, record: Data, at date: Date) throws {
        try connection.run(
            """
            INSERT INTO widgetbus.pending_record (user_id, collection, id, revision, record, pending_since)
            VALUES (\(user), \(collection), \(id), \(Int64(revision)), \(record), \(date.timeIntervalSince1970))
            ON CONFLICT (user_id, collection, id) DO UPDATE SET revision = excluded.revision, record = excluded.record,
                pending_since = coalesce(pending_record.pending_since, excluded.pending_since)
            """)
    }

    func pendingRecordRows(user: String) throws -> [(revision: UInt64, record: Data)] {
        try connection.run("SELECT revision, record FROM widgetbus.pending_record WHERE user_id = \(user) ORDER BY collection COLLATE \"C\", id COLLATE \"C\"").map {
            let (revision, record) = try $0.decode((Int64, Data).self)
            return (UInt64(revision), record)
        }
    }

    func pendingUsers() throws -> [String] {
        try connection.run("SELECT DISTINCT user_id FROM widgetbus.pending_record ORDER BY user_id COLLATE \"C\"").map { try $0.decode(String.self) }
    }

    func clearPendingRecord(user: String, collection: String, id: String, revision: UInt64) throws -> Bool {
        try connection.changes(
            """
            DELETE FROM widgetbus.pending_record
            WHERE user_id = \(user) AND collection = \(collection) AND id = \(id) AND revision = \(Int64(revision))
            """) > 0
    }

    func inSavepoint<T>(_ body: () throws -> T) throws -> T {
        try connection.run("SAVEPOINT request")
        do {
            let result = try body()
            try connection.run("RELEASE SAVEPOINT request")
            return result
        } catch {
            try connection.run("ROLLBACK TO SAVEPOINT request")
            try connection.run("RELEASE SAVEPOINT request")
            throw error
        }
    }
}
