import Foundation
import GRDB
import Storage

/// The default target: an embedded SQLite file (`sync-target.sqlite` under `WIDGETBUS_DATA_DIR`)
/// with the same schema as PostgreSQL, so the demo needs nothing installed.
///
/// Writes go through GRDB's async `write`, which runs on GRDB's own serial queue, never blocking
/// the concurrency pool.
struct SQLiteSyncTarget: SyncTarget {
    let path: String
    private let database: SQLiteDatabase

    init(path: String) throws {
        self.path = path
        database = try SQLiteDatabase(path: path)
    }

    var description: String { "sqlite:\(path)" }

    func prepareSchema() async throws {
        do {
            try await database.queue.write { db in try db.execute(sql: TargetSchema.ddl) }
        } catch {
            throw SyncTargetError.failed("creating the schema: \(Self.describe(error))")
        }
    }

    func upsert(_ rows: [TargetRow]) async throws {
        do {
            try await database.queue.write { db in
                for batch in TargetSchema.batches(rows) {
                    let sql = TargetSchema.upsertSQL(batch.table, rowCount: batch.rows.count) { _ in "?" }
                    let values = batch.rows.flatMap { $0.values.map(Self.databaseValue) }
                    try db.execute(sql: sql, arguments: StatementArguments(values))
                }
            }
        } catch {
            throw Self.classify(error)
        }
    }

    private static func databaseValue(_ value: SQLValue) -> DatabaseValue {
        switch value {
        case .text(let text): text.databaseValue
        case .integer(let integer): integer.databaseValue
        case .real(let real): real.databaseValue
        case .boolean(let boolean): boolean.databaseValue
        case .timestamp(let date): date.databaseValue
        case .null: .null
        }
    }

    /// Constraint, type and size errors are the data's fault; anything else (busy, I/O, full
    /// disk, a missing table) fails the pass.
    static func classify(_ error: any Error) -> SyncTargetError {
        guard let error = error as? DatabaseError else { return .failed(describe(error)) }
        switch error.resultCode {
        case .SQLITE_CONSTRAINT, .SQLITE_MISMATCH, .SQLITE_TOOBIG, .SQLITE_RANGE:
            return .rejected(describe(error))
        default:
            return .failed(describe(error))
        }
    }

    private static func describe(_ error: any Error) -> String {
        guard let error = error as? DatabaseError else { return "\(error)" }
        return "SQLite error \(error.extendedResultCode.rawValue): \(error.message ?? "\(error.resultCode)")"
    }
}
