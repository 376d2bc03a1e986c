import Foundation
import GRDB
import Storage
import WidgetBusProtocol
import WidgetDomain

/// intent-handler's durable store, the single source of widget state: per-user app states and
/// profiles, the
/// records pending sync, the replies to handled requests (for idempotent retries) and the event
/// sequence. Every change happens in one transaction with the reply it produces. Statements on
/// the per-intent path come from GRDB's statement cache, so each is compiled once.
final class WidgetStateStore {
    /// How long a handled request's reply is kept for retries.
    static let replyRetention: TimeInterval = 24 * 60 * 60

    let database: SQLiteDatabase
    private let codec: WireCodec

    init(path: String, codec: WireCodec) throws {
        database = try SQLiteDatabase(path: path)
        self.codec = codec
        try Self.migrator.migrate(database.queue)
    }

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

    // MARK: - Reads and writes inside a transaction

    func lastSequence(_ db: Database) throws -> UInt64 {
        try UInt64.fetchOne(db.cachedStatement(sql: "SELECT value FROM bus_sequence WHERE name = 'state'")) ?? 0
    }

    func saveSequence(_ db: Database, _ sequence: UInt64) throws {
        try db.cachedStatement(sql: "UPDATE bus_sequence SET value = ? WHERE name = 'state'").execute(arguments: [sequence])
    }

    func handledRequest(_ db: Database, id: String) throws -> (user: String?, type: String, reply: Data)? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT user, type, reply FROM handled_request WHERE id = ?"), arguments: [id])
            .map { ($0["user"], $0["type"], $0["reply"]) }
    }

    func saveHandledRequest(_ db: Database, id: String, user: String?, type: String, reply: Data, at date: Date) throws {
        try db.cachedStatement(sql: "INSERT INTO handled_request (id, user, type, reply, handled_at) VALUES (?, ?, ?, ?, ?)")
            .execute(arguments: [id, user, type, reply, date.timeIntervalSince1970])
    }

    func state(_ db: Database, user: String, app: WidgetApp) throws -> StateRecord? {
        try Data.fetchOne(
            db.cachedStatement(sql: "SELECT record FROM widget_state WHERE user = ? AND app = ?"), arguments: [user, app.rawValue]
        ).map { try codec.decode(StateRecord.self, from: $0) }
    }

    func saveState(_ db: Database, _ record: StateRecord) throws {
        try db.cachedStatement(sql: "INSERT OR REPLACE INTO widget_state (user, app, version, record) VALUES (?, ?, ?, ?)")
            .execute(arguments: [record.user, record.app.rawValue, record.version, try codec.encode(record)])
    }

    func profile(_ db: Database, user: String) throws -> UserProfile? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT time_zone, version FROM user_profile WHERE user = ?"), arguments: [user])
            .map { UserProfile(user: user, timeZone: $0["time_zone"], version: $0["version"]) }
    }

    func saveProfile(_ db: Database, _ profile: UserProfile) throws {
        try db.cachedStatement(sql: "INSERT OR REPLACE INTO user_profile (user, time_zone, version) VALUES (?, ?, ?)")
            .execute(arguments: [profile.user, profile.timeZone, profile.version])
    }

    func pushTokens(_ db: Database, user: String) throws -> UserPushTokens? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT user, version, tokens FROM user_push_tokens WHERE user = ?"), arguments: [user])
            .map(pushTokens(in:))
    }

    private func pushTokens(in row: Row) throws -> UserPushTokens {
        UserPushTokens(user: row["user"], tokens: try codec.decode([WidgetPushToken].self, from: row["tokens"]), version: row["version"])
    }

    /// Stores a user's tokens. A user left with none keeps the row, so the version of that change
    /// is what later replies report, but has no entry in snapshots.
    func savePushTokens(_ db: Database, _ pushTokens: UserPushTokens) throws {
        try db.cachedStatement(sql: "INSERT OR REPLACE INTO user_push_tokens (user, version, tokens) VALUES (?, ?, ?)")
            .execute(arguments: [pushTokens.user, pushTokens.version, try codec.encode(pushTokens.tokens)])
    }

    /// Inserts or replaces a pending record; `revision` tells a later sync acknowledgement
    /// whether it acknowledged this version of the record or an older one. A record already
    /// pending keeps the date it first became pending.
    func savePendingRecord(_ db: Database, user: String, record: PendingRecord, revision: UInt64, at date: Date) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO pending_record (user, collection, id, revision, record, pending_since) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (user, collection, id) DO UPDATE SET revision = excluded.revision, record = excluded.record,
                    pending_since = coalesce(pending_record.pending_since, excluded.pending_since)
                """
        ).execute(arguments: [user, record.collection, record.id, revision, try codec.encode(record), date.timeIntervalSince1970])
    }

    /// The sync backlog: how many records wait, and since when the oldest of them (nil when none
    /// waits, or when those waiting became pending before their dates were kept).
    func pendingBacklog() throws -> (records: Int, oldest: Date?) {
        try database.queue.read { db in
            let row = try Row.fetchOne(db, sql: "SELECT count(*), min(pending_since) FROM pending_record")
            return (row?[0] ?? 0, (row?[1] as Double?).map(Date.init(timeIntervalSince1970:)))
        }
    }

    /// Every state, profile and user's push tokens whose topic starts with `topicPrefix`, with the
    /// sequence they are current at in the publisher's `epoch`.
    func snapshot(_ db: Database, topicPrefix: String, epoch: String) throws -> SnapshotBody {
        // Filtered by topic before decoding: a follower that asks for profiles reads no state.
        let records = try Row.fetchAll(db, sql: "SELECT user, app, record FROM widget_state ORDER BY user, app")
            .filter { row in WidgetApp(rawValue: row["app"]).map { Topic.state(app: $0, user: row["user"]).hasPrefix(topicPrefix) } ?? false }
            .map { try codec.decode(StateRecord.self, from: $0["record"]) }
        let profiles = try Row.fetchAll(db, sql: "SELECT user, time_zone, version FROM user_profile ORDER BY user")
            .map { UserProfile(user: $0["user"], timeZone: $0["time_zone"], version: $0["version"]) }
            .filter { Topic.profile(user: $0.user).hasPrefix(topicPrefix) }
        let pushTokens = try Row.fetchAll(db, sql: "SELECT user, version, tokens FROM user_push_tokens ORDER BY user")
            .filter { Topic.pushTokens(user: $0["user"]).hasPrefix(topicPrefix) }
            .map(pushTokens(in:)).filter { !$0.tokens.isEmpty }
        return SnapshotBody(epoch: epoch, sequence: try lastSequence(db), states: records, profiles: profiles, pushTokens: pushTokens)
    }

    func pendingRecords(_ db: Database, user: String) throws -> [RevisedRecord] {
        try Row.fetchAll(
            db, sql: "SELECT revision, record FROM pending_record WHERE user = ? ORDER BY collection, id", arguments: [user]
        ).map { RevisedRecord(revision: $0["revision"], record: try codec.decode(PendingRecord.self, from: $0["record"])) }
    }

    func pendingUsers(_ db: Database) throws -> [String] {
        try String.fetchAll(db, sql: "SELECT DISTINCT user FROM pending_record ORDER BY user")
    }

    /// Clears the acknowledged records whose revision is still the acknowledged one; returns how
    /// many were cleared. A record changed after the acknowledged revision stays pending.
    func acknowledge(_ db: Database, user: String, _ acknowledgements: [RecordAcknowledgement]) throws -> Int {
        var cleared = 0
        for acknowledgement in acknowledgements {
            try db.execute(
                sql: "DELETE FROM pending_record WHERE user = ? AND collection = ? AND id = ? AND revision = ?",
                arguments: [user, acknowledgement.collection, acknowledgement.id, acknowledgement.revision])
            cleared += db.changesCount
        }
        return cleared
    }

    // MARK: - Whole operations

    func pruneHandledRequests(olderThan date: Date) throws -> Int {
        try database.write { db in
            try db.execute(sql: "DELETE FROM handled_request WHERE handled_at < ?", arguments: [date.timeIntervalSince1970])
            return db.changesCount
        }
    }
}
