import BusRuntime
import Dispatch
import Foundation
import Storage
import Synchronization

/// snapshot-writer's disk: writes each batch of files on a thread of its own, one batch after the
/// other, and posts what came of each to the bus (``written``).
///
/// A batch waits for the device twice (``AtomicFileWriter/write(_:)``), and on a busy disk that
/// takes from milliseconds to seconds. Were it written on the bus thread, the timeline events
/// arriving meanwhile would wait in libzmq's queues, which hold every one of them; written here,
/// the bus thread keeps taking them into ``SnapshotFiles``, which keeps one per file within its
/// budget. So snapshot-writer's memory follows its files, not how slow the disk is.
final class SnapshotDisk: Sendable {
    /// What came of one batch.
    struct Outcome: Sendable {
        /// The error of each file that failed, by its index in the batch.
        var failures: [Int: any Error]
        /// How long the files took, the batch's two barriers aside (``WriteBatchSize``).
        var filesTime: Duration
        /// When the batch was on the device.
        var finished: DispatchTime
    }

    /// Each batch's outcome, for the bus thread.
    let written: BusMailbox<Outcome>
    /// Used on ``queue`` only; the lock hands it from one of the queue's threads to the next.
    private let writer = Mutex(AtomicFileWriter())
    /// A serial queue: libdispatch's threads, not the Swift concurrency pool's, so that a batch
    /// waiting for the disk holds no thread async code needs.
    private let queue = DispatchQueue(label: "widgetbus.snapshot-disk")

    init() throws {
        written = try BusMailbox()
    }

    /// Starts writing `files` after the batches handed over before; its ``Outcome`` is posted to
    /// ``written``.
    func write(_ files: [(data: Data, path: String)]) {
        queue.async { [self] in written.post(writeNow(files)) }
    }

    /// Returns once every batch handed over before is on the device and its outcome posted.
    func waitForBatches() {
        queue.sync {}
    }

    /// Writes `files` on the calling thread; call it after ``waitForBatches()`` (the last batch,
    /// on stop), or from the queue.
    func writeNow(_ files: [(data: Data, path: String)]) -> Outcome {
        writer.withLock { writer in
            let started = ContinuousClock.now
            let failures = writer.write(files)
            return Outcome(failures: failures, filesTime: ContinuousClock.now - started - writer.lastBarrierTime, finished: .now())
        }
    }
}
