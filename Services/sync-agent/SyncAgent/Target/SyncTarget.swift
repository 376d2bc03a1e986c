/// The database sync-agent pushes records to: PostgreSQL/Supabase (``PostgresSyncTarget``) or the
/// embedded SQLite default (``SQLiteSyncTarget``). Both run the same schema (``TargetSchema``)
/// and the same upsert; what a pass does with them is in ``SyncPass``, shared by both.
protocol SyncTarget: Sendable {
    /// Where the records go, for logs (no password).
    var description: String { get }

    /// Creates the tables if they do not exist (``TargetSchema/ddl``).
    ///
    /// - Throws: ``SyncTargetError``.
    func prepareSchema() async throws

    /// Upserts `rows` in one transaction, keyed by record id, never over a newer revision: all of
    /// them are stored, or none.
    ///
    /// - Throws: ``SyncTargetError/rejected(_:)`` when the database refused the data (a
    ///   constraint or a value), ``SyncTargetError/failed(_:)`` for anything else (unreachable,
    ///   timed out, misconfigured).
    func upsert(_ rows: [TargetRow]) async throws
}

/// Why the target did not store a batch. The distinction decides what a pass does next.
enum SyncTargetError: Error, Equatable, CustomStringConvertible {
    /// The database is up but refused the data (constraint, check, trigger, bad value): some
    /// record of the batch is poison, so the pass retries record by record.
    case rejected(String)
    /// The database could not be used (down, timed out, connection lost, schema missing): the
    /// whole pass fails and every record stays pending.
    case failed(String)

    var description: String {
        switch self {
        case .rejected(let message), .failed(let message): message
        }
    }
}
