import Foundation
import GRDB
import Testing

@testable import Storage

/// The write-ahead log reaches the database file through the checkpointer's thread, not the
/// writer's: on the real file system, with SQLite's own files as the evidence.
struct WALCheckpointerTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wal-\(UUID().uuidString)").path

    func size(_ path: String) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    }

    @Test func theLogReachesTheDatabaseFileOffTheWritersThread() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/store.sqlite"
        let database = try SQLiteDatabase.connection(path: path)  // no checkpointer yet
        try database.write { try $0.execute(sql: "CREATE TABLE blob (value BLOB NOT NULL)") }
        for _ in 0..<300 {
            try database.write { try $0.execute(sql: "INSERT INTO blob (value) VALUES (?)", arguments: [Data(count: 4_000)]) }
        }
        #expect(size(path) < 64 * 1024, "below the backstop the writer leaves its 1.2 MB log alone")
        #expect(size(path + "-wal") > 300 * 4_000)

        let checkpointer = try WALCheckpointer(path: path, interval: .milliseconds(5))
        let deadline = ContinuousClock.now + .seconds(10)
        while size(path) < 300 * 4_000, ContinuousClock.now < deadline {
            usleep(1_000)  // SQLite reports nothing: the file's size is the evidence
        }
        #expect(size(path) >= 300 * 4_000, "the checkpointer copied the log into the database file")
        #expect(try database.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM blob") } == 300)
        withExtendedLifetime(checkpointer) {}
    }
}
