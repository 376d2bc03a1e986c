import Foundation
import Logging
import PostgresNIO
import PostgresStorage

/// PostgreSQL (Supabase included) through postgres-nio's pooled, async ``PostgresClient``. The
/// client runs as its own ServiceLifecycle service in the agent's ServiceGroup; this type only
/// borrows connections from it.
struct PostgresSyncTarget: SyncTarget {
    let client: PostgresClient
    let description: String
    let logger: Logger

    func prepareSchema() async throws {
        do {
            try await client.withConnection { connection in
                for statement in TargetSchema.statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
            }
        } catch {
            throw SyncTargetError.failed("creating the schema: \(Self.classify(error).description)")
        }
    }

    func upsert(_ rows: [TargetRow]) async throws {
        do {
            try await client.withTransaction(logger: logger) { connection in
                for batch in TargetSchema.batches(rows) {
                    let sql = TargetSchema.upsertSQL(batch.table, rowCount: batch.rows.count) { "$\($0)" }
                    var binds = PostgresBindings(capacity: batch.rows.count * batch.table.columns.count)
                    for row in batch.rows {
                        for value in row.values { Self.bind(value, into: &binds) }
                    }
                    try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger)
                }
            }
        } catch {
            throw Self.classify(error)
        }
    }

    private static func bind(_ value: SQLValue, into binds: inout PostgresBindings) {
        switch value {
        case .text(let text): binds.append(text)
        case .integer(let integer): binds.append(integer)
        case .real(let real): binds.append(real)
        case .boolean(let boolean): binds.append(boolean)
        case .timestamp(let date): binds.append(date)
        case .null: binds.append(String?.none)
        }
    }

    /// SQLSTATE classes 21 (cardinality), 22 (data exception), 23 (integrity constraint) and P0
    /// (raised by a PL/pgSQL trigger) mean the server refused this data; every other failure —
    /// connection refused or lost, timeouts, a missing table, permissions — fails the pass.
    static func classify(_ error: any Error) -> SyncTargetError {
        if let transaction = error as? PostgresTransactionError {
            if let cause = transaction.closureError ?? transaction.commitError ?? transaction.beginError {
                return classify(cause)
            }
            return .failed("transaction failed")
        }
        if let error = error as? SyncTargetError { return error }
        guard let error = error as? PSQLError else {
            return .failed(error is CancellationError ? "cancelled" : "\(error)")
        }
        let message = PostgresErrorText.describe(error)
        guard error.code == .server, let state = error.serverInfo?[.sqlState] else { return .failed(message) }
        return ["21", "22", "23", "P0"].contains(String(state.prefix(2))) ? .rejected(message) : .failed(message)
    }
}
