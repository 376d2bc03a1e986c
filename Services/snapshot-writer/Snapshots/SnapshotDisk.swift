import BusRuntime
import Dispatch
import Foundation
import Storage
import Synchronization
import WidgetBusProtocol

/// snapshot-writer's disk: writes each batch of files, and reads the files back for the periodic
/// check, on a thread of its own, one job after the other; what came of each waits in
/// ``takeReports()``, and ``wakeUps`` tells the bus thread.
///
/// A batch waits for the device twice (``AtomicFileWriter/write(_:)``), which on a busy disk takes
/// from milliseconds to seconds, and a check reads every file, seconds at 80,000 files (handed
/// over a slice at a time, so that batches go between them: ``SnapshotFiles/checkDisk()``). Were they
/// done on the bus thread, the timeline events arriving meanwhile would wait in libzmq's queues,
/// which hold every one of them; done here, the bus thread keeps taking them into
/// ``SnapshotFiles``, which keeps one per file within its budget. So snapshot-writer's memory
/// follows its files, not how slow the disk is.
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

    /// What a job reports to the bus thread.
    enum Report: Sendable {
        case written(Outcome)
        /// Whether any file checked showed another stamp on disk than the one it was believed to.
        case checked(anyDiffers: Bool)
    }

    /// Rung when a job has reported.
    let wakeUps: BusMailbox<Void>
    /// The reports not taken yet, in the order of the jobs.
    private let reports = Mutex<[Report]>([])
    /// Used by one thread at a time: the queue's (and the bus thread's on stop, once the queue is
    /// idle); the lock hands them from one to the next.
    private let tools = Mutex(Tools())
    /// A serial queue: libdispatch's threads, not the Swift concurrency pool's, so that a job
    /// waiting for the disk holds no thread async code needs.
    private let queue = DispatchQueue(label: "widgetbus.snapshot-disk")

    private struct Tools {
        let writer = AtomicFileWriter()
        let codec = WireCodec()
    }

    init() throws {
        wakeUps = try BusMailbox()
    }

    /// Starts writing `files` after the jobs handed over before; its ``Outcome`` is reported.
    func write(_ files: [(data: Data, path: String)]) {
        queue.async { [self] in report(.written(writeNow(files))) }
    }

    /// Starts reading the header of each of `files` after the jobs handed over before, and
    /// reports whether any of them shows another stamp than the one given (missing, unreadable
    /// or replaced on disk).
    func check(_ files: [(file: String, stamp: WidgetSnapshot.Stamp)]) {
        queue.async { [self] in
            let anyDiffers = tools.withLock { tools in
                files.contains { SnapshotFiles.header(onDiskAt: $0.file, codec: tools.codec)?.stamp != $0.stamp }
            }
            report(.checked(anyDiffers: anyDiffers))
        }
    }

    /// The reports of the jobs done since the last call, in their order.
    func takeReports() -> [Report] {
        reports.withLock { reports in
            defer { reports = [] }
            return reports
        }
    }

    /// Returns once every job handed over before is done and has reported.
    func waitForJobs() {
        queue.sync {}
    }

    private func report(_ report: Report) {
        reports.withLock { $0.append(report) }
        wakeUps.post(())
    }

    /// Writes `files` on the calling thread: the last batch, on stop, after ``waitForJobs()``.
    func writeNow(_ files: [(data: Data, path: String)]) -> Outcome {
        tools.withLock { tools in
            let started = ContinuousClock.now
            let failures = tools.writer.write(files)
            return Outcome(failures: failures, filesTime: ContinuousClock.now - started - tools.writer.lastBarrierTime, finished: .now())
        }
    }
}
