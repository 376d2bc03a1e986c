import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A real PostgreSQL server for one test run: Debian's `postgresql` binaries (installed by
/// `scripts/test.sh`), a cluster initialised in a temporary directory, listening on a free
/// loopback port with trust authentication. Tests stop it (immediate shutdown, as in a crash or
/// a network cut) and start it again on the same port.
///
/// As root, PostgreSQL refuses to run, so the server runs as the `postgres` user and the
/// directory belongs to it. Use ``SyncAgentTests`` `.postgresServer` trait, which starts one
/// server for the suite on first use and removes it afterwards.
final class PostgresServer: @unchecked Sendable {
    enum Failure: Error, CustomStringConvertible {
        case notInstalled
        case command(String, CommandResult)

        var description: String {
            switch self {
            case .notInstalled:
                "PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/pg_ctl); scripts/test.sh installs Debian's postgresql"
            case .command(let what, let result):
                "\(what) failed (\(result.status)): \(result.stdout) \(result.stderr)"
            }
        }
    }

    let port: Int
    let directory: URL
    private let binaries: URL
    private var dataDirectory: URL { directory.appendingPathComponent("data") }
    private var logFile: URL { directory.appendingPathComponent("postgres.log") }
    private let runAsPostgres = geteuid() == 0
    private var postgresBinary: URL { binaries.appendingPathComponent("postgres") }
    private var process: Process?
    /// An address it listens on beside loopback, trusting every client that reaches it there.
    private let networkAddress: String?

    /// - Parameter networkAddress: an address of this machine to listen on too (a test network's).
    init(alsoListeningOn networkAddress: String? = nil) throws {
        self.networkAddress = networkAddress
        guard let binaries = Self.binaryDirectory() else { throw Failure.notInstalled }
        self.binaries = binaries
        port = try freeLoopbackPort()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("widgetbus-pg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        if runAsPostgres {
            try check("chown", runCommand(URL(fileURLWithPath: "/bin/chown"), ["-R", "postgres:postgres", directory.path], environment: [:]))
        }
        try check("initdb", run("initdb", ["-D", dataDirectory.path, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8"]))
        if networkAddress != nil {
            let rules = try FileHandle(forWritingTo: dataDirectory.appendingPathComponent("pg_hba.conf"))
            rules.seekToEndOfFile()
            rules.write(Data("host all all 0.0.0.0/0 trust\n".utf8))
            try rules.close()
        }
        try start()
    }

    deinit {
        remove()
    }

    /// `postgres://…` for `database`, as sync-agent's `WIDGETBUS_SYNC_DATABASE_URL` takes it.
    func url(database: String, host: String = "127.0.0.1") -> String {
        "postgres://postgres@\(host):\(port)/\(database)?sslmode=disable"
    }

    /// Runs the server as a child process (not daemonised through `pg_ctl start`: Foundation's
    /// `Process` would wait for the daemon, which inherits its exit-watch socket) and waits until
    /// it accepts connections.
    func start() throws {
        let arguments = [
            postgresBinary.path, "-D", dataDirectory.path, "-c", "listen_addresses=\(["127.0.0.1", networkAddress].compactMap { $0 }.joined(separator: ","))",
            "-c", "port=\(port)",
            "-c", "unix_socket_directories=\(directory.path)", "-c", "fsync=off", "-c", "full_page_writes=off",
        ]
        let process = Process()
        if runAsPostgres {
            process.executableURL = URL(fileURLWithPath: "/usr/sbin/runuser")
            process.arguments = ["-u", "postgres", "--"] + arguments
        } else {
            process.executableURL = postgresBinary
            process.arguments = Array(arguments.dropFirst())
        }
        process.environment = ["LANG": "C.UTF-8"]
        if !FileManager.default.fileExists(atPath: logFile.path) {
            _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        }
        let log = try FileHandle(forWritingTo: logFile)
        log.seekToEndOfFile()
        process.standardOutput = log
        process.standardError = log
        try process.run()
        self.process = process
        let deadline = Date().addingTimeInterval(30)
        while true {
            let probe = try runCommand(
                binaries.appendingPathComponent("psql"),
                ["-h", "127.0.0.1", "-p", "\(port)", "-U", "postgres", "-d", "postgres", "-X", "-A", "-t", "-c", "SELECT 1"],
                environment: ["PGCONNECT_TIMEOUT": "2"])
            if probe.status == 0 { return }
            guard process.isRunning, Date() < deadline else {
                try check("postgres start", probe)
                return
            }
            usleep(100_000)
        }
    }

    /// Stops at once (SIGQUIT to the postmaster, as `pg_ctl stop -m immediate` does), dropping
    /// every connection, like a crash.
    func stopImmediately() throws {
        guard let process else { return }
        self.process = nil
        let pidFile = dataDirectory.appendingPathComponent("postmaster.pid")
        if let text = try? String(contentsOf: pidFile, encoding: .utf8), let pid = Int32(text.split(separator: "\n").first ?? "") {
            kill(pid, SIGQUIT)
        } else {
            kill(process.processIdentifier, SIGQUIT)
        }
        let deadline = Date().addingTimeInterval(15)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// A fresh, empty database.
    func createDatabase(_ name: String) throws {
        _ = try psql("CREATE DATABASE \(name)", database: "postgres")
    }

    /// Runs `sql` with psql and returns its unaligned, tuples-only output (`|` between columns).
    @discardableResult
    func psql(_ sql: String, database: String) throws -> String {
        let result = try runCommand(
            binaries.appendingPathComponent("psql"),
            ["-h", "127.0.0.1", "-p", "\(port)", "-U", "postgres", "-d", database, "-v", "ON_ERROR_STOP=1", "-X", "-A", "-t", "-c", sql],
            environment: ["PGCONNECT_TIMEOUT": "5"])
        try check("psql \(sql)", result)
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Rows of `sql`, each split into its columns.
    func rows(_ sql: String, database: String) throws -> [[String]] {
        try psql(sql, database: database).split(separator: "\n").map { $0.split(separator: "|", omittingEmptySubsequences: false).map(String.init) }
    }

    func remove() {
        try? stopImmediately()
        try? FileManager.default.removeItem(at: directory)
    }

    private func run(_ tool: String, _ arguments: [String]) throws -> CommandResult {
        let executable = binaries.appendingPathComponent(tool)
        if runAsPostgres {
            return try runCommand(
                URL(fileURLWithPath: "/usr/sbin/runuser"), ["-u", "postgres", "--", executable.path] + arguments,
                environment: ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"])
        }
        return try runCommand(executable, arguments, environment: ["LANG": "C.UTF-8"])
    }

    private func check(_ what: String, _ result: CommandResult) throws {
        guard result.status == 0 else {
            let log = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
            throw Failure.command(what, CommandResult(status: result.status, stdout: result.stdout, stderr: result.stderr + "\n" + log))
        }
    }

    /// The newest installed major version's binaries.
    private static func binaryDirectory() -> URL? {
        let root = URL(fileURLWithPath: "/usr/lib/postgresql")
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? [])
            .compactMap(Int.init).sorted(by: >)
        return versions.map { root.appendingPathComponent("\($0)/bin") }
            .first { FileManager.default.isExecutableFile(atPath: $0.appendingPathComponent("pg_ctl").path) }
    }
}

/// One PostgreSQL server shared by the tests of a suite, started when a test first asks for it
/// and removed when the suite ends: `@Suite(.postgresServer)`, then `try PostgresServer.shared()`.
struct PostgresServerTrait: SuiteTrait, TestScoping {
    var isRecursive: Bool { false }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let holder = PostgresServer.Holder()
        try await PostgresServer.$current.withValue(holder) {
            try await function()
        }
        holder.server?.remove()
    }
}

extension Trait where Self == PostgresServerTrait {
    static var postgresServer: Self { PostgresServerTrait() }
}

extension PostgresServer {
    final class Holder: @unchecked Sendable {
        private let lock = NSLock()
        private var started: Result<PostgresServer, any Error>?

        var server: PostgresServer? {
            lock.withLock { try? started?.get() }
        }

        func get() throws -> PostgresServer {
            try lock.withLock {
                if started == nil { started = Result { try PostgresServer() } }
                return try started!.get()
            }
        }
    }

    @TaskLocal static var current: Holder?

    /// The suite's server (see ``PostgresServerTrait``).
    static func shared() throws -> PostgresServer {
        guard let holder = current else {
            Issue.record("the suite needs the .postgresServer trait")
            throw Failure.notInstalled
        }
        return try holder.get()
    }
}

extension BusFixture {
    /// Has intent-handler keep its state in `database`, a fresh database of the suite's server
    /// (``PostgresServerTrait``), instead of its SQLite file; returns the server.
    @discardableResult
    func keepState(inPostgresDatabase database: String) throws -> PostgresServer {
        let server = try PostgresServer.shared()
        try server.createDatabase(database)
        environment["WIDGETBUS_STATE_STORE"] = server.url(database: database)
        return server
    }
}
