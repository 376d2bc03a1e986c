import Foundation
import GRDB

/// Opens the embedded SQLite store every service uses by default.
///
/// WAL with `synchronous=NORMAL`: a committed transaction survives a process crash (kill -9);
/// only a power loss can take back the last few commits, which is the trade the services make
/// for committing every intent before replying without an fsync per commit.
public enum SQLiteDatabase {
    public static func open(path: String) throws -> DatabaseQueue {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        var configuration = Configuration()
        configuration.journalMode = .wal
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        return try DatabaseQueue(path: path, configuration: configuration)
    }
}
