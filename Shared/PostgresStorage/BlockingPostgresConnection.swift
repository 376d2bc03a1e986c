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
/// transaction, never inside one: a transaction whose connection was lost fails whole.
public final class BlockingPostgresConnection {
    private let configuration: PostgresConnection.Configuration
    private let logger: Logger
    private var connection: PostgresConnection?
    private var connections = 0

    /// Connects to `url`, failing at once when the server cannot be reached.
    public init(url: PostgresURL, logger: Logger) throws {
        configuration = try url.connectionConfiguration()
        self.logger = logger
        _ = try connected()
    }

    deinit {
        close()
    }

    /// Runs `body` in one transaction, committed when it returns; rolled back when it or the
    /// commit throws.
    public func transaction<T>(_ body: (BlockingPostgresConnection) throws -> T) throws -> T {
        _ = try connected()
        try run("BEGIN")
        do {
            let result = try body(self)
            try run("COMMIT")
            return result
        } catch {
            _ = try? run("ROLLBACK")
            throw error
        }
    }

    /// Runs `query` on the open connection and waits for all its rows.
    @discardableResult
    public func run(_ query: PostgresQuery) throws -> PostgresQueryResult {
        guard let connection, !connection.isClosed else { throw ConnectionLost() }
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

    public func close() {
        try? connection?.close().wait()
        connection = nil
    }

    private func connected() throws -> PostgresConnection {
        if let connection, !connection.isClosed { return connection }
        connections += 1
        let opened = try PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.any(), configuration: configuration, id: connections, logger: logger
        ).wait()
        connection = opened
        return opened
    }
}
