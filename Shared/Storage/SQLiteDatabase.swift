import Foundation
import GRDB
import Metrics
import Observability

/// The embedded SQLite store every service uses by default: one connection for its reads and
/// writes, and a ``WALCheckpointer`` beside it for as long as the store is kept.
///
/// WAL with `synchronous=NORMAL`: a committed transaction survives a process crash (kill -9);
/// only a power loss can take back the last few commits, which is the trade the services make
/// for committing every intent before replying without an fsync per commit. The log is copied
/// into the database off the committing thread; the connection's own automatic checkpoint waits
/// until the log holds ``walBackstopPages``, as a bound for when the checkpointer falls behind.
public final class SQLiteDatabase: Sendable {
    /// Pages (4 KiB) in the log before the committing connection checkpoints it itself: 256 MiB.
    ///
    /// Under a steady stream of writes that checkpoint is the only moment the log starts over (the
    /// checkpointer's, from another connection, never catches up with a writer that keeps
    /// writing), and it holds the writer for the frames still to copy and two fsyncs: tens of
    /// milliseconds, a few hundred on a busy disk, for every request waiting behind it. So it
    /// should come rarely: at 1,000 intents/s (about 9 KB of log each) once every half minute.
    /// The price: a busy store's log file grows to about 270 MB (frames of a page and a
    /// 24-byte header) and keeps that size, and is read back after a crash (256 MiB took 0.2 s
    /// from a cold cache on the benchmark machine).
    public static let walBackstopPages = 65536

    /// The connection every read and write of the store goes through.
    public let queue: DatabaseQueue
    private let checkpointer: WALCheckpointer
    /// `widgetbus_store_commit_duration_seconds{store}`: each ``write(_:)`` transaction, its
    /// commit included; the store is the file's name without its extension.
    private let commits: Timer

    /// Opens (or creates, with its folder) the database at `path` and starts its checkpointer.
    public init(path: String) throws {
        queue = try Self.connection(path: path)
        checkpointer = try WALCheckpointer(path: path)
        let store = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
        commits = Timer(MetricCatalog.storeCommitDuration, ["store": store])
    }

    /// Runs `updates` in one transaction and commits it, timed.
    public func write<T>(_ updates: (Database) throws -> T) throws -> T {
        let start = DispatchTime.now()
        defer { commits.recordInterval(since: start) }
        return try queue.write(updates)
    }

    /// A connection to the database at `path` with the store's settings, creating its folder.
    static func connection(path: String) throws -> DatabaseQueue {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        var configuration = Configuration()
        configuration.journalMode = .wal
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            try db.execute(sql: "PRAGMA wal_autocheckpoint = \(walBackstopPages)")
        }
        return try DatabaseQueue(path: path, configuration: configuration)
    }
}

extension Database {
    /// Runs `body` in a savepoint: its changes stay if it returns and are undone if it throws,
    /// whatever else the enclosing transaction holds. Like GRDB's `inSavepoint`, but from cached
    /// statements: a group commit runs one per request, and compiling SAVEPOINT and RELEASE each
    /// time would cost as much as the request's own statements.
    public func inCachedSavepoint<T>(_ body: () throws -> T) throws -> T {
        try cachedStatement(sql: "SAVEPOINT request").execute()
        do {
            let result = try body()
            try cachedStatement(sql: "RELEASE SAVEPOINT request").execute()
            return result
        } catch {
            try cachedStatement(sql: "ROLLBACK TO SAVEPOINT request").execute()
            try cachedStatement(sql: "RELEASE SAVEPOINT request").execute()
            throw error
        }
    }
}
