import Foundation
import GRDB
import Logging
import ServiceSupport
import Synchronization

/// Copies one database's write-ahead log into the database file on a thread of its own: passive
/// checkpoints from a connection of its own, one after the other while the writer keeps adding
/// to the log, else one every `interval`, so the thread that commits neither copies pages nor
/// waits for the fsyncs that follow them — the tail of every request that happened to cross
/// SQLite's automatic checkpoint.
///
/// A passive checkpoint never blocks the writer and never waits for it. When the writer outruns
/// it for long, the writer's own automatic checkpoint at ``SQLiteDatabase/walBackstopPages``
/// still bounds the log. Stops when released.
final class WALCheckpointer: Sendable {
    static let defaultInterval = Duration.milliseconds(250)

    /// What the thread shares with its owner (not the owner itself, whose release stops it).
    private final class Signals: Sendable {
        let stopped = Atomic<Bool>(false)
        let wake = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
    }

    private let signals = Signals()

    init(path: String, interval: Duration = defaultInterval) throws {
        let connection = try SQLiteDatabase.connection(path: path)
        let logger = Logger(label: "widgetbus.sqlite")
        let timeout = DispatchTimeInterval.milliseconds(Int(interval.millisecondsRoundedUp))
        Thread { [signals] in
            var caughtUp = true
            while !signals.stopped.load(ordering: .acquiring) {
                if caughtUp { _ = signals.wake.wait(timeout: .now() + timeout) }
                guard !signals.stopped.load(ordering: .acquiring) else { break }
                do {
                    let log = try connection.writeWithoutTransaction { try $0.checkpoint(.passive) }
                    caughtUp = log.checkpointedFrameCount >= log.walFrameCount
                } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY {
                    caughtUp = true  // the writer is checkpointing the log itself (the backstop)
                } catch {
                    caughtUp = true
                    logger.warning("WAL checkpoint failed; trying again", metadata: ["widgetbus.database": "\(path)", "widgetbus.error": "\(error)"])
                }
            }
            signals.finished.signal()
        }.start()
    }

    /// Ends the thread after the checkpoint in progress, if any.
    deinit {
        signals.stopped.store(true, ordering: .releasing)
        signals.wake.signal()
        signals.finished.wait()
    }
}
