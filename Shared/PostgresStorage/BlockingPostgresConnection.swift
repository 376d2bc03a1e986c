import Logging
import NIOCore
import NIOPosix
import PostgresNIO

/// One PostgreSQL connection used from a thread that may wait — a service's bus thread, which
/// owns it — never from the Swift concurrency pool: every call waits for the server's answer.
/// A service whose whole turn is synchronous (a group commit on the bus thread) keeps its
/// transactions in order this way without a second thread of its own; the connection's I/O
/// runs on NIO's shared event loops, the process's one runtime.
///
/// A connection the server or the network closed is opened again at the start of the next
/// transaction, never inside one: a transaction whose connection was lost fails whole. The new
/// connection first ends the old one's session on the server, which may still hold a
/// transaction whose COMMIT never arrived, and its locks. No wait lasts longer than
/// ``longestWait``: past it the connection is closed and the statement fails.

public final class BlockingPostgresConnection {
    /// The longest a statement is waited for before its connection is given up.
    public static let longestWait: TimeAmount = .seconds(10)

    private let configuration: PostgresConnection.Configuration
    private let logger: Logger
    private var connection: PostgresConnection?
    /// The server process of the session last opened and when it started (a process id alone
    /// may be another session's after the server restarted): ended when the next one opens.
    private var session: (process: Int32, started: String)?
    private var connections = 0
    private let idleInTransactionTimeout: TimeAmount

    /// Connects to `url`, failing at once when the server cannot be reached.
    /// - Parameter idleInTransactionTimeout: how long the server keeps a session of ours that
    ///   waits inside a transaction for its client (gone, paused or cut off) before it ends it
    ///   and releases its locks.
    public init(url: PostgresURL, logger: Logger, idleInTransactionTimeout: TimeAmount = .seconds(10)) throws {
        configuration = try url.connectionConfiguration()
        self.logger = logger
        self.idleInTransactionTimeout = idleInTransactionTimeout
        try connectIfClosed()
    }

    deinit {
        close()
    }

    /// Runs `body` in one transaction, committed when it returns; rolled back when it or the
    /// commit throws. A COMMIT the server answers with a rollback (a statement of the
    /// transaction failed) throws.
    public func transaction<T>(_ body: (BlockingPostgresConnection) throws -> T) throws -> T {
        try connectIfClosed()
        try run("BEGIN")
        do {
            let result = try body(self)
            let commit = try run("COMMIT")
            guard commit.metadata.command == "COMMIT" else { throw RolledBack() }
            return result
        } catch {
            do {
                try run("ROLLBACK")
            } catch {
                // A session whose transaction state is unknown must not carry the next one.
                close()
            }
            throw error
        }
    }

    /// Runs `query` on the open connection and waits for all its rows, at most ``longestWait``.
    @discardableResult
    public func run(_ query: PostgresQuery) throws -> PostgresQueryResult {
        guard let connection, !connection.isClosed else { throw ConnectionLost() }
        // Closing the connection fails the statement it waits for.
        let deadline = connection.eventLoop.scheduleTask(in: Self.longestWait) { let _: EventLoopFuture<Void> = connection.close() }
        defer { deadline.cancel() }
        return try connection.query(query, logger: logger).wait()
    }


    /// The rows affected by `query`: what a DELETE or an UPDATE changed.
    public func changes(_ query: PostgresQuery) throws -> Int {
        try run(query).metadata.rows ?? 0
    }

    /// The connection closed inside a transaction: the transaction failed, and the next one
    /// connects again.
    public struct ConnectionLost: Error, CustomStringConvertible {
        public var description: String { "the connection to PostgreSQL was closed" }
    }

    /// The server answered COMMIT with a rollback: a statement of the transaction had failed.
    public struct RolledBack: Error, CustomStringConvertible {
        public var description: String { "PostgreSQL rolled the transaction back" }
    }

    public func close() {
        try? connection?.close().wait()
        connection = nil
    }

    private func connectIfClosed() throws {
        if let connection, !connection.isClosed { return }
        connections += 1
        connection = try PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.any(), configuration: configuration, id: connections, logger: logger
        ).wait()
        // The server ends a session of ours left inside a transaction (its client gone without a
        // word), and no lock is waited for past a statement's deadline.
        try run(PostgresQuery(unsafeSQL: "SET idle_in_transaction_session_timeout = '\(max(1, idleInTransactionTimeout.nanoseconds / 1_000_000))ms'"))
        try run("SET lock_timeout = '5s'")
        if let previous = session {
            _ = try? run(
                """
                SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                WHERE pid = \(previous.process) AND backend_start::text = \(previous.started)
                """)
        }
        session = try run("SELECT pid, backend_start::text FROM pg_stat_activity WHERE pid = pg_backend_pid()").first?
            .decode((Int32, String).self)
    }
}
