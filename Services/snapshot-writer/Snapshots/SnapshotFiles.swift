import Foundation
import Logging
import Metrics
import ServiceSupport
import Tracing
import WidgetBusProtocol
import WidgetDomain

/// The snapshot files under one root: it knows what each file reflects (its header, as last
/// written or read), holds the newest snapshot waiting for each file, writes a file only when
/// it does not already show that snapshot's stamp, and reads the disk when asked, so a file
/// deleted or damaged by hand is caught.
final class SnapshotFiles {
    /// How long a failed write waits before it is tried again (unless a change comes first).
    static let retryDelay: TimeInterval = 1

    private let writer = AtomicFileWriter()
    private let root: String
    private let codec: WireCodec
    private let logger: Logger
    /// What each file reflects, as last written or read; absent when missing or unreadable.
    private var reflected: [SnapshotPath: WidgetSnapshot.Header] = [:]
    /// A file's newest timeline, waiting to be written, and since when the file has been behind.
    private struct Waiting {
        var timeline: PublishedTimeline
        /// When the first timeline the file does not show yet was taken: a newer one replacing a
        /// waiting one keeps it, so the lag is counted from the oldest change not on disk.
        var since: DispatchTime
    }

    /// The newest timeline for each file that waits to be written.
    private var waiting: [SnapshotPath: Waiting] = [:]
    /// Failed writes, to try again at a date of their own.
    private var retries = RefreshSchedule<SnapshotPath>()
    private let metrics = FileMetrics()
    /// `<root>/.snapshot-writer.lock`, open with an exclusive `flock` for the writer's life: a
    /// second writer of the same root would write into this one's spares, so it refuses to start.
    /// The kernel drops the lock when the process ends, however it ends.
    private let rootLock: Int32

    /// Another snapshot-writer holds the root's lock, or the lock file cannot be opened.
    struct RootUnavailable: Error, CustomStringConvertible {
        let description: String
    }

    /// What the files report (docs/OBSERVABILITY.md).
    private struct FileMetrics {
        let written = Counter(MetricCatalog.snapshotFilesWritten)
        let failed = Counter(MetricCatalog.snapshotWriteFailures)
        /// A change that replaced one still waiting for its write: one write for both.
        let coalesced = Counter(MetricCatalog.snapshotChangesCoalesced)
        /// A file that no longer showed what this writer last wrote to it (deleted or changed by
        /// hand), found on reading the disk: written again.
        let refreshed = Counter(MetricCatalog.snapshotFilesRefreshed)
        /// `widgetbus_snapshot_write_batch_size`: files written together, sharing their barriers.
        let batch = Recorder(histogramOf: MetricCatalog.snapshotWriteBatchSize)
        /// `widgetbus_snapshot_file_lag_seconds`: how long a written file had been behind its timeline.
        let lag = Timer(MetricCatalog.snapshotFileLag)
    }

    /// Creates the root, takes its lock and removes the temporary files a crash left under it.
    init(root: String, codec: WireCodec, logger: Logger) throws {
        try writer.createDirectory(root)
        let lockPath = (root as NSString).appendingPathComponent(".snapshot-writer.lock")
        rootLock = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, AtomicFileWriter.fileMode)
        guard rootLock >= 0 else {
            throw RootUnavailable(description: "cannot open \(lockPath): \(String(cString: strerror(errno)))")
        }
        guard flock(rootLock, LOCK_EX | LOCK_NB) == 0 else {
            close(rootLock)
            throw RootUnavailable(description: "another snapshot-writer is writing \(root) (it holds \(lockPath))")
        }
        let leftovers = AtomicFileWriter.removeTemporaryFiles(under: root)
        if !leftovers.isEmpty {
            logger.notice("removed temporary files left by a crash", metadata: ["widgetbus.count": "\(leftovers.count)"])
        }
        self.root = root
        self.codec = codec
        self.logger = logger
    }

    deinit {
        close(rootLock)
    }

    /// Takes the newest timelines and returns the files they must be written to: those not
    /// showing their stamp. With `readingDisk` (after a re-sync) each file is read first, so
    /// one that was deleted, damaged or left behind while the writer was stopped is caught.
    func take(_ timelines: [PublishedTimeline], readingDisk: Bool, now: Date) -> [SnapshotPath] {
        timelines.compactMap { timeline in
            let snapshot = timeline.snapshot
            guard let path = path(user: snapshot.stamp.user, kind: snapshot.stamp.kind) else { return nil }
            if readingDisk {
                let believed = reflected[path]
                reflected[path] = header(onDiskAt: path)
                if believed?.isCurrent(for: snapshot.stamp, at: now) == true, reflected[path]?.isCurrent(for: snapshot.stamp, at: now) != true {
                    metrics.refreshed.increment()
                }
            }
            guard reflected[path]?.isCurrent(for: snapshot.stamp, at: now) != true else { return nil }
            if let replaced = waiting[path] {
                metrics.coalesced.increment()
                logger.debug(
                    "snapshot change coalesced into a later one", metadata: .traced(replaced.timeline.trace, ["widgetbus.file": "\(path)"]))
                waiting[path] = Waiting(timeline: timeline, since: replaced.since)
            } else {
                waiting[path] = Waiting(timeline: timeline, since: .now())
            }
            return path
        }
    }

    /// Whether any file of `latest` does not show its stamp on disk: missing, unreadable, of
    /// another schema, widget, version or zone. A file with a write waiting is not read: its
    /// next write brings it up to date anyway.
    func anyDiffersFromDisk(_ latest: [WidgetReplicas.Widget: WidgetSnapshot.Header]) -> Bool {
        latest.contains { widget, wanted in
            guard let path = path(user: widget.user, kind: widget.kind), waiting[path] == nil else { return false }
            reflected[path] = header(onDiskAt: path)
            return reflected[path]?.stamp != wanted.stamp
        }
    }

    /// The files whose failed write is due again at `now`.
    func retriesDue(now: Date) -> [SnapshotPath] {
        retries.takeDue(now: now)
    }

    /// When the next retry is due; nil when none is scheduled.
    var nextRetry: Date? {
        retries.nextDue
    }

    /// Writes the waiting snapshot of each of `paths`, as one durable batch
    /// (``AtomicFileWriter/write(_:)``). A failed write is logged and tried again after
    /// ``retryDelay``, or sooner by a new snapshot of the same file.
    func write(_ paths: [SnapshotPath], now: Date) {
        var pending: [(path: SnapshotPath, waited: Waiting, data: Data)] = []
        for path in paths {
            guard let waited = waiting.removeValue(forKey: path) else { continue }
            do {
                pending.append((path, waited, try waited.timeline.snapshot.encoded(with: codec)))
            } catch {
                logger.error("snapshot not encodable", metadata: ["widgetbus.file": "\(path)", "widgetbus.error": "\(error)"])
            }
        }
        guard !pending.isEmpty else { return }
        metrics.batch.record(pending.count)
        // One span per file, each lasting the batch's write: the files share its barriers.
        let spans = pending.map { MessageSpan.start("write snapshot file", continuing: $0.waited.timeline.trace) }
        let failures = writer.write(pending.map { ($0.data, $0.path.file) })
        let written = DispatchTime.now()
        for (index, write) in pending.enumerated() {
            let trace = write.waited.timeline.trace
            defer { spans[index]?.end() }
            if let error = failures[index] {
                spans[index]?.recordError(error)
                metrics.failed.increment()
                logger.error("snapshot write failed", metadata: .traced(trace, ["widgetbus.file": "\(write.path)", "widgetbus.error": "\(error)"]))
                if waiting[write.path] == nil { waiting[write.path] = write.waited }
                retries.schedule(write.path, at: now.addingTimeInterval(Self.retryDelay))
            } else {
                reflected[write.path] = write.waited.timeline.snapshot.header
                metrics.written.increment()
                metrics.lag.recordInterval(since: write.waited.since, end: written)
                logger.debug("snapshot written", metadata: .traced(trace, ["widgetbus.file": "\(write.path)"]))
            }
        }
    }

    /// The file of `user`'s `kind`, or nil (logged) when the user id or kind could leave the root.
    private func path(user: String, kind: WidgetKind) -> SnapshotPath? {
        do {
            return try SnapshotPath(root: root, user: user, kind: kind)
        } catch {
            logger.warning("snapshot refused", metadata: ["widgetbus.reason": "\(error)"])
            return nil
        }
    }

    private func header(onDiskAt path: SnapshotPath) -> WidgetSnapshot.Header? {
        FileManager.default.contents(atPath: path.file).flatMap { try? codec.decode(WidgetSnapshot.Header.self, from: $0) }
    }
}
