import Foundation
import GRDB
import Storage
import WidgetBusProtocol
import WidgetDomain

/// The state store in one SQLite file in the data folder, through GRDB: the embedded default,
/// durable on the machine it runs on. Statements on the per-intent path come from GRDB's
/// statement cache, so each is compiled once.
final class SQLiteStateStore: StateStore {
    let database: SQLiteDatabase
    private let codec: WireCodec
    let location: String

    init(path: String, codec: WireCodec) throws {
        database = try SQLiteDatabase(path: path)
        self.codec = codec
        location = path
        try Self.migrator.migrate(database.queue)
    }

    func write<T>(_ body: (any StateTransaction) throws -> T) throws -> T {
        try database.write { db in try body(SQLiteStateTransaction(db: db, codec: codec)) }
    }

    func pendingBacklog() throws -> (records: Int, oldest: Date?) {
        try database.queue.read { db in
            let row = try Row.fetchOne(db, sql: "SELECT count(*), min(pending_since) FROM pending_record")
            return (row?[0] ?? 0, (row?[1] as Double?).map(Date.init(timeIntervalSince1970:)))
        }
    }

    func pruneHandledRequests(olderThan date: Date) throws -> Int {
        try database.write { db in
            try db.execute(sql: "DELETE FROM handled_request WHERE handled_at < ?", arguments: [date.timeIntervalSince1970])
            return db.changesCount
        }
    }

    // One process, one file: it holds every slot.
    var leaseRenewalInterval: TimeInterval? { nil }
    func maintainLeases() throws {}
    var slotsTaken: Int { 0 }

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE widget_state (
                        user TEXT NOT NULL, app TEXT NOT NULL, version INTEGER NOT NULL, record BLOB NOT NULL,
                        PRIMARY KEY (user, app)) WITHOUT ROWID;
                    CREATE TABLE user_profile (
                        user TEXT PRIMARY KEY NOT NULL, time_zone TEXT NOT NULL, version INTEGER NOT NULL) WITHOUT ROWID;
                    CREATE TABLE pending_record (
                        user TEXT NOT NULL, collection TEXT NOT NULL, id TEXT NOT NULL,
                        revision INTEGER NOT NULL, record BLOB NOT NULL,
                        PRIMARY KEY (user, collection, id)) WITHOUT ROWID;
                    CREATE TABLE handled_request (
                        id TEXT PRIMARY KEY NOT NULL, user TEXT, type TEXT NOT NULL,
                        reply BLOB NOT NULL, handled_at REAL NOT NULL) WITHOUT ROWID;
                    CREATE INDEX handled_request_age ON handled_request (handled_at);
                    CREATE TABLE bus_sequence (name TEXT PRIMARY KEY NOT NULL, value INTEGER NOT NULL) WITHOUT ROWID;
                    INSERT INTO bus_sequence (name, value) VALUES ('state', 0);
                    """)
        }
        // When a record became pending (kept while later changes replace it), for the age of
        // the sync backlog; a row pending before this migration gets its date at its next change.
        migrator.registerMigration("v2") { db in
            try db.execute(
                sql: """
                    ALTER TABLE pending_record ADD COLUMN pending_since REAL;
                    CREATE INDEX pending_record_age ON pending_record (pending_since);
                    """)
        }
        // Each user's widget push tokens, as one JSON array: they are read and written together.
        migrator.registerMigration("v3") { db in
            try db.execute(
                sql: """
                    CREATE TABLE user_push_tokens (
                        user TEXT PRIMARY KEY NOT NULL, version INTEGER NOT NULL, tokens BLOB NOT NULL) WITHOUT ROWID;
                    """)
        }
        return migrator
    }
}

/// One transaction of a ``SQLiteStateStore``.
private struct SQLiteStateTransaction: StateTransaction {
    let db: Database
    let codec: WireCodec

    /// A SQLite write transaction already holds the file against every other writer.
    func lockSequence() throws -> UInt64 {
        try UInt64.fetchOne(db.cachedStatement(sql: "SELECT value FROM bus_sequence WHERE name = 'state'")) ?? 0
    }

    func saveSequence(_ sequence: UInt64) throws {
        try db.cachedStatement(sql: "UPDATE bus_sequence SET value = ? WHERE name = 'state'").execute(arguments: [sequence])
    }

    func redirects(for users: () -> Set<String>) throws -> [String: ShardRedirect]? { nil }

    /// A lookup in a local file costs no round trip: each is made when asked.
    func startBurst(ids: () -> [String], users: () -> Set<String>) throws -> (sequence: UInt64, redirects: [String: ShardRedirect]?) {
        (try lockSequence(), nil)
    }

    func handledRequest(id: String) throws -> (user: String?, type: String, reply: Data)? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT user, type, reply FROM handled_request WHERE id = ?"), arguments: [id])
            .map { ($0["user"], $0["type"], $0["reply"]) }
    }

    func saveHandledRequest(id: String, user: String?, type: String, reply: Data, at date: Date) throws {
        try db.cachedStatement(sql: "INSERT INTO handled_request (id, user, type, reply, handled_at) VALUES (?, ?, ?, ?, ?)")
            .execute(arguments: [id, user, type, reply, date.timeIntervalSince1970])
    }

    func stateRow(user: String, app: WidgetApp) throws -> Data? {
        try Data.fetchOne(db.cachedStatement(sql: "SELECT record FROM widget_state WHERE user = ? AND app = ?"), arguments: [user, app.rawValue])
    }

    func saveStateRow(user: String, app: WidgetApp, version: UInt64, record: Data) throws {
        try db.cachedStatement(sql: "INSERT OR REPLACE INTO widget_state (user, app, version, record) VALUES (?, ?, ?, ?)")
            .execute(arguments: [user, app.rawValue, version, record])
    }

    func stateRows() throws -> [(user: String, app: String, record: Data)] {
        try Row.fetchAll(db, sql: "SELECT user, app, record FROM widget_state ORDER BY user, app").map { ($0["user"], $0["app"], $0["record"]) }
    }

    func profile(user: String) throws -> UserProfile? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT time_zone, version FROM user_profile WHERE user = ?"), arguments: [user])
            .map { UserProfile(user: user, timeZone: $0["time_zone"], version: $0["version"]) }
    }

    func saveProfile(_ profile: UserProfile) throws {
        try db.cachedStatement(sql: "INSERT OR REPLACE INTO user_profile (user, time_zone, version) VALUES (?, ?, ?)")
            .execute(arguments: [profile.user, profile.timeZone, profile.version])
    }

    func profiles() throws -> [UserProfile] {
        try Row.fetchAll(db, sql: "SELECT user, time_zone, version FROM user_profile ORDER BY user")
            .map { UserProfile(user: $0["user"], timeZone: $0["time_zone"], version: $0["version"]) }
    }

    func pushTokensRow(user: String) throws -> (version: UInt64, tokens: Data)? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT version, tokens FROM user_push_tokens WHERE user = ?"), arguments: [user])
            .map { ($0["version"], $0["tokens"]) }
    }

    func savePushTokensRow(user: String, version: UInt64, tokens: Data) throws {
        try db.cachedStatement(sql: "INSERT OR REPLACE INTO user_push_tokens (user, version, tokens) VALUES (?, ?, ?)")
            .execute(arguments: [user, version, tokens])
    }

    func pushTokensRows() throws -> [(user: String, version: UInt64, tokens: Data)] {
        try Row.fetchAll(db, sql: "SELECT user, version, tokens FROM user_push_tokens ORDER BY user").map { ($0["user"], $0["version"], $0["tokens"]) }
    }

    func savePendingRecordRow(user: String, collection: String, id: String, revision: UInt64, record: Data, at date: Date) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO pending_record (user, collection, id, revision, record, pending_since) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (user, collection, id) DO UPDATE SET revision = excluded.revision, record = excluded.record,
                    pending_since = coalesce(pending_record.pending_since, excluded.pending_since)
                """
        ).execute(arguments: [user, collection, id, revision, record, date.timeIntervalSince1970])
    }

    func pendingRecordRows(user: String) throws -> [(revision: UInt64, record: Data)] {
        try Row.fetchAll(db, sql: "SELECT revision, record FROM pending_record WHERE user = ? ORDER BY collection, id", arguments: [user])
            .map { ($0["revision"], $0["record"]) }
    }

    func pendingUsers() throws -> [String] {
        try String.fetchAll(db, sql: "SELECT DISTINCT user FROM pending_record ORDER BY user")
    }

    func clearPendingRecord(user: String, collection: String, id: String, revision: UInt64) throws -> Bool {
        try db.execute(
            sql: "DELETE FROM pending_record WHERE user = ? AND collection = ? AND id = ? AND revision = ?",
            arguments: [user, collection, id, revision])
        return db.changesCount > 0
    }

    func inSavepoint<T>(_ body: () throws -> T) throws -> T {
        try db.inCachedSavepoint(body)
    }
}
