import Foundation
import GRDB
import Storage
import WidgetBusProtocol
import WidgetDomain

/// metrics-ingest's durable store: per-user aggregates with the version of their last change,
/// the keys of accepted samples (for duplicates), the status counters and the event sequence.
/// Every change of a pushed message is one transaction; nothing is published before it commits.
final class MetricsStore {
    /// A sample's identity: a second sample with the same key is a duplicate.
    struct SampleKey: Hashable {
        var user: String
        var kind: MetricKind
        /// Milliseconds since 1970, the wire's precision.
        var takenAt: Int64

        init(user: String, kind: MetricKind, takenAt: Date) {
            self.user = user
            self.kind = kind
            self.takenAt = Int64((takenAt.timeIntervalSince1970 * 1000).rounded())
        }
    }

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
                    CREATE TABLE metrics_aggregate (
                        user TEXT PRIMARY KEY NOT NULL, version INTEGER NOT NULL, aggregate BLOB NOT NULL) WITHOUT ROWID;
                    CREATE TABLE accepted_sample (
                        user TEXT NOT NULL, kind TEXT NOT NULL, taken_at INTEGER NOT NULL,
                        PRIMARY KEY (user, kind, taken_at)) WITHOUT ROWID;
                    CREATE INDEX accepted_sample_age ON accepted_sample (taken_at);
                    CREATE TABLE metrics_counter (name TEXT PRIMARY KEY NOT NULL, value INTEGER NOT NULL) WITHOUT ROWID;
                    CREATE TABLE bus_sequence (name TEXT PRIMARY KEY NOT NULL, value INTEGER NOT NULL) WITHOUT ROWID;
                    INSERT INTO bus_sequence (name, value) VALUES ('metrics', 0);
                    """)
        }
        return migrator
    }

    // MARK: - Inside a transaction

    func lastSequence(_ db: Database) throws -> UInt64 {
        try UInt64.fetchOne(db.cachedStatement(sql: "SELECT value FROM bus_sequence WHERE name = 'metrics'")) ?? 0
    }

    func nextSequence(_ db: Database) throws -> UInt64 {
        try db.cachedStatement(sql: "UPDATE bus_sequence SET value = value + 1 WHERE name = 'metrics'").execute()
        return try lastSequence(db)
    }

    /// Records `key` as accepted; false when it already was (a duplicate).
    func insertIfNew(_ db: Database, _ key: SampleKey) throws -> Bool {
        try db.cachedStatement(sql: "INSERT OR IGNORE INTO accepted_sample (user, kind, taken_at) VALUES (?, ?, ?)")
            .execute(arguments: [key.user, key.kind.rawValue, key.takenAt])
        return db.changesCount > 0
    }

    func save(_ db: Database, _ record: MetricsRecord) throws {
        try db.cachedStatement(sql: "INSERT OR REPLACE INTO metrics_aggregate (user, version, aggregate) VALUES (?, ?, ?)")
            .execute(arguments: [record.user, record.version, try codec.encode(record.aggregate)])
    }

    func add(_ db: Database, counts: MetricsCounters) throws {
        for (name, delta) in counts.values where delta > 0 {
            try db.cachedStatement(
                sql: "INSERT INTO metrics_counter (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = value + excluded.value"
            ).execute(arguments: [name, delta])
        }
    }

    // MARK: - Whole operations

    /// Everything kept, as metrics-ingest loads it at start.
    func load() throws -> (records: [String: MetricsRecord], counters: MetricsCounters, sequence: UInt64) {
        try database.queue.read { db in
            var records: [String: MetricsRecord] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT user, version, aggregate FROM metrics_aggregate") {
                let record = MetricsRecord(
                    user: row["user"], version: row["version"],
                    aggregate: try codec.decode(MetricsAggregate.self, from: row["aggregate"]))
                records[record.user] = record
            }
            var counters = MetricsCounters()
            for row in try Row.fetchAll(db, sql: "SELECT name, value FROM metrics_counter") {
                counters.values[row["name"]] = row["value"]
            }
            return (records, counters, try lastSequence(db))
        }
    }

    /// Forgets accepted-sample keys older than `date`. Safe at the 7-day acceptance window: a
    /// sample that old is refused as too old before its key is ever looked up.
    func pruneAcceptedSamples(takenBefore date: Date) throws -> Int {
        try database.write { db in
            try db.execute(
                sql: "DELETE FROM accepted_sample WHERE taken_at < ?",
                arguments: [Int64((date.timeIntervalSince1970 * 1000).rounded(.down))])
            return db.changesCount
        }
    }
}
