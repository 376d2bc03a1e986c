import BusRuntime
import Foundation
import Logging
import Metrics
import Observability
import ServiceSupport
import Storage
import Tracing
import W3CTraceContext
import WidgetBusProtocol
import WidgetDomain

/// The snapshot files under one root: it knows what each file reflects (its header, as last
/// written or read), holds the newest snapshot waiting for each file, writes a file only when
/// it does not already show that snapshot's stamp, and reads the disk when asked, so a file
/// deleted or damaged by hand is caught.
///
/// The timelines waiting for their writes are held within a byte budget: past it a change keeps
/// only its stamp, and when its write falls due its timeline is asked of timeline-service
/// (``fetchRequests(for:now:)``), which builds it from its state. So however far the writes fall
/// behind, memory holds at most the budget of timelines (and one batch of fetched ones) beside a
/// header per file, and the batch being written, of at most ``WriteBatchSize/range`` files.
final class SnapshotFiles {
    /// How long a failed write, or a fetch not answered, waits before it is tried again (unless a
    /// change comes first).
    static let retryDelay: TimeInterval = 1
    /// Fetches awaited at once, at most: they bound the fetched timelines in memory beyond the budget.
    static let fetchesAwaited = 256
    /// The files a disk check reads in one job on the disk's thread. The jobs run one after the
    /// other, so a batch handed over during a check waits for one slice, not for every file
    /// (seconds at 80,000 files); and the loop makes the paths of one slice at a time.
    static let checkSlice = 1_024

    /// Writes each batch on a thread of its own.
    let disk: SnapshotDisk
    /// The batch being written; nil when none is.
    private var writing: [FileWrite]?
    /// What the files of that batch are to show: what the disk shows of them is changing.
    private var writingHeaders: [SnapshotPath: WidgetSnapshot.Header] = [:]
    /// Whether a disk check is on its way (``checkDisk()``).
    private var checking = false
    /// The files the check on its way has not handed to the disk yet, a slice at a time.
    private var unchecked: [SnapshotPath] = []
    private let root: String
    private let codec: WireCodec
    private let logger: Logger
    /// What each file reflects, as last written or read; absent when missing or unreadable.
    private var reflected: [SnapshotPath: WidgetSnapshot.Header] = [:]
    /// What a file waits to show, and since when it has been behind. The table of waiting files
    /// holds one inline per file — every file, after a large backlog — so what most entries lack
    /// is held by reference: the timeline past the budget, the trace when tracing is off.
    private struct Waiting {
        /// The newest timeline's header: what the file is to reflect.
        var header: WidgetSnapshot.Header
        /// Its content; nil when the budget had no room for it, until a fetch brings it.
        var content: Boxed<WidgetSnapshot>?
        private var tracedBy: Boxed<TraceContext>?
        /// When the first timeline the file does not show yet was taken: a newer one replacing a
        /// waiting one keeps it, so the lag is counted from the oldest change not on disk.
        var since: DispatchTime

        init(header: WidgetSnapshot.Header, trace: TraceContext?, since: DispatchTime) {
            self.header = header
            tracedBy = trace.map(Boxed.init)
            self.since = since
        }

        var snapshot: WidgetSnapshot? { content?.value }
        var trace: TraceContext? { tracedBy?.value }
    }

    /// A value held by reference.
    private final class Boxed<Value> {
        let value: Value

        init(_ value: Value) {
            self.value = value
        }
    }

    /// The newest timeline for each file that waits to be written.
    private var waiting: [SnapshotPath: Waiting] = [:]
    /// The bytes of timeline held in ``waiting`` (``WidgetSnapshot/timelineByteCount``).
    private var waitingBytes = 0
    /// How many bytes of timeline may wait; a change past it waits as its header only.
    private let waitingBudget: Int
    /// The files whose fetch is awaited, by the fetch's id.
    private var awaited: [String: SnapshotPath] = [:]
    /// The fetch awaited for each of those files: its id, and when it was asked.
    private var fetches: [SnapshotPath: (id: String, askedAt: Date)] = [:]
    /// Files given a fetched timeline newer than the last event taken for them: an event still
    /// on its way that precedes it is not applied, so the file never goes back.
    private var fetchedAhead: [SnapshotPath: WidgetSnapshot.Stamp] = [:]
    /// How many due files the next batch may hold.
    var batchLimit: Int { batchSize.files }
    private var batchSize = WriteBatchSize()
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
        /// `widgetbus_snapshot_timelines_fetched_total`: timelines asked of timeline-service because
        /// the budget had no room to keep them waiting.
        let fetched = Counter(MetricCatalog.snapshotTimelinesFetched)
        /// `widgetbus_snapshot_waiting_bytes`: the bytes of timeline waiting for their writes.
        let waitingBytes = Gauge(MetricCatalog.snapshotWaitingBytes)
        /// `widgetbus_snapshot_files_waiting`: files waiting for their write, and those of the
        /// batch being written.
        let waitingFiles = Gauge(MetricCatalog.snapshotFilesWaiting)
    }

    /// Creates the root, takes its lock and removes the temporary files a crash left under it.
    /// `waitingBudget`: the bytes of timeline that may wait in memory for their writes.
    init(root: String, waitingBudget: Int, codec: WireCodec, logger: Logger) throws {
        try AtomicFileWriter().createDirectory(root)
        disk = try SnapshotDisk()
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
        self.waitingBudget = waitingBudget
        self.codec = codec
        self.logger = logger
    }

    deinit {
        disk.waitForJobs()  // a batch still on its way is this root's writer's to finish
        close(rootLock)
    }

    /// Takes a timeline as it is published and returns its file when the file must be written:
    /// when it does not show the timeline's stamp already.
    func take(_ timeline: PublishedTimeline, now: Date) -> SnapshotPath? {
        defer { reportWaiting() }
        guard let path = path(user: timeline.snapshot.stamp.user, kind: timeline.snapshot.stamp.kind),
            !isBehindFetched(path, timeline.snapshot.stamp)
        else { return nil }
        return wait(for: timeline, at: path, now: now)
    }

    /// Takes every timeline timeline-service publishes, after a re-sync, and returns the files
    /// that must be written. Each file is read from the disk first, so one that was deleted,
    /// damaged or left behind while the writer was stopped is caught; the files of widgets not
    /// among them are no longer followed (left on disk as they are, unchecked).
    func takeResync(_ snapshots: [WidgetSnapshot], now: Date) -> [SnapshotPath] {
        defer { reportWaiting() }
        let published = snapshots.compactMap { snapshot in path(user: snapshot.stamp.user, kind: snapshot.stamp.kind).map { ($0, snapshot) } }
        let followed = Set(published.map(\.0))
        reflected = reflected.filter { followed.contains($0.key) }
        return published.compactMap { path, snapshot in
            guard !isBehindFetched(path, snapshot.stamp) else { return nil }
            let believed = reflected[path]
            reflected[path] = header(onDiskAt: path)
            if believed?.isCurrent(for: snapshot.stamp, at: now) == true, reflected[path]?.isCurrent(for: snapshot.stamp, at: now) != true {
                metrics.refreshed.increment()
            }
            return wait(for: PublishedTimeline(snapshot: snapshot, trace: nil), at: path, now: now)
        }
    }

    /// Whether a timeline of `stamp` precedes the fetched one `path` was given ahead of the
    /// events: it is then not applied, so the file never goes back. Any other timeline is the
    /// fetched one or newer: the events have caught up with the fetch.
    private func isBehindFetched(_ path: SnapshotPath, _ stamp: WidgetSnapshot.Stamp) -> Bool {
        guard let ahead = fetchedAhead[path] else { return false }
        if stamp.precedes(ahead) { return true }
        fetchedAhead[path] = nil
        return false
    }

    /// Makes `timeline` the one its file waits for, unless the file shows its stamp already or
    /// is being written with it (should that write fail, its retry writes it); returns the file
    /// when it waits.
    private func wait(for timeline: PublishedTimeline, at path: SnapshotPath, now: Date) -> SnapshotPath? {
        let snapshot = timeline.snapshot
        guard (writingHeaders[path] ?? reflected[path])?.isCurrent(for: snapshot.stamp, at: now) != true else { return nil }
        var entry = Waiting(header: snapshot.header, trace: timeline.trace, since: .now())
        if let replaced = waiting[path] {
            metrics.coalesced.increment()
            logger.debug("snapshot change coalesced into a later one", metadata: .traced(replaced.trace, ["widgetbus.file": "\(path)"]))
            entry.since = replaced.since
            waitingBytes -= replaced.snapshot?.timelineByteCount ?? 0
        }
        if waitingBytes + snapshot.timelineByteCount <= waitingBudget {
            entry.content = Boxed(snapshot)
            waitingBytes += snapshot.timelineByteCount
        }
        waiting[path] = entry
        return path
    }

    /// The `TimelineRequest`s that fetch the timeline of each of `paths` (files whose write came
    /// due without it, as ``write(_:now:)`` returns them) from timeline-service, at most
    /// ``fetchesAwaited`` awaited at once. A file not asked now, or whose fetch is not answered,
    /// is tried again after ``retryDelay``.
    func fetchRequests(for paths: [SnapshotPath], now: Date) -> [Data] {
        paths.compactMap { path in
            guard let entry = waiting[path], entry.snapshot == nil else { return nil }
            if let fetch = fetches[path] {
                guard now >= fetch.askedAt.addingTimeInterval(Self.retryDelay) else { return nil }  // still awaited
                awaited[fetch.id] = nil
                fetches[path] = nil
            }
            retries.schedule(path, at: now.addingTimeInterval(Self.retryDelay))
            guard awaited.count < Self.fetchesAwaited else { return nil }
            let request = Envelope(
                id: MessageID.random(), type: MessageType.timelineRequest.rawValue, user: path.user, sentAt: now,
                body: TimelineRequestBody(kind: path.kind))
            do {
                let payload = try codec.encode(request)
                fetches[path] = (request.id, now)
                awaited[request.id] = path
                metrics.fetched.increment()
                return payload
            } catch {
                logger.error("timeline request not encodable", metadata: ["widgetbus.file": "\(path)", "widgetbus.error": "\(error)"])
                return nil
            }
        }
    }

    /// Takes timeline-service's answer to a fetch; returns the file to write with the next batch
    /// (its write was due already), or nil. The timeline becomes the file's waiting content when
    /// it is the one the file waits for or a newer one of the same zone; any other answer, or an
    /// error, leaves the file to be asked again by its retry.
    func takeFetched(_ payload: Data) -> SnapshotPath? {
        guard let reply = TimelineMessages.reply(payload), let path = awaited.removeValue(forKey: reply.inReplyTo),
            fetches[path]?.id == reply.inReplyTo, var entry = waiting[path]
        else { return nil }
        fetches[path] = nil
        defer {
            waiting[path] = entry
            reportWaiting()
        }
        guard let snapshot = reply.timeline.flatMap(WidgetSnapshot.init(timelineBody:)), snapshot.stamp.user == path.user,
            snapshot.stamp.kind == path.kind
        else {
            logger.debug("timeline fetch not answered with a timeline: asked again", metadata: ["widgetbus.file": "\(path)"])
            return nil
        }
        // Only the same stamp, or a later one in the same zone: a zone change keeps the versions,
        // so a timeline of other versions *and* another zone cannot be placed before or after
        // the events still on their way. Anything else is asked again by the retry, a second on.
        let wanted = entry.header.stamp
        guard snapshot.stamp == wanted || (wanted.precedes(snapshot.stamp) && snapshot.stamp.timeZone == wanted.timeZone) else {
            logger.debug("fetched timeline not the one waiting: asked again", metadata: ["widgetbus.file": "\(path)"])
            return nil
        }
        if snapshot.stamp != wanted { fetchedAhead[path] = snapshot.stamp }
        waitingBytes += snapshot.timelineByteCount - (entry.snapshot?.timelineByteCount ?? 0)
        entry.header = snapshot.header
        entry.content = Boxed(snapshot)
        return path
    }

    /// Starts checking, on the disk's thread, whether any file does not show on disk the stamp it
    /// was last written or read with: deleted, unreadable, or replaced by another schema's,
    /// widget's, version's or zone's file; the answer comes to ``takeDiskReports(now:)``. A file with a
    /// write waiting or being written is not read: that write brings it up to date anyway; nor is
    /// one given a fetched timeline ahead of the events: the event of that timeline is on its
    /// way. A check still on its way is not started again. The files are read ``checkSlice`` at a
    /// time, each slice once the one before has reported, so the batches written meanwhile go
    /// between them; each file is judged when its slice is handed over. Returns whether a check
    /// started.
    @discardableResult
    func checkDisk() -> Bool {
        guard !checking else { return false }
        unchecked = Array(reflected.keys)
        checking = checkNextSlice()
        return checking
    }

    /// Hands the disk the next slice of ``unchecked`` that has a file to read; false when none is left.
    private func checkNextSlice() -> Bool {
        while !unchecked.isEmpty {
            let slice = unchecked.suffix(Self.checkSlice)
            unchecked.removeLast(slice.count)
            let believed = slice.compactMap { path -> (file: String, stamp: WidgetSnapshot.Stamp)? in
                guard let header = reflected[path], waiting[path] == nil, writingHeaders[path] == nil, fetchedAhead[path] == nil else {
                    return nil
                }
                return (path.file, header.stamp)
            }
            if !believed.isEmpty {
                disk.check(believed)
                return true
            }
        }
        return false
    }

    /// Takes what the jobs on the disk's thread reported since the last call; returns whether a
    /// disk check found a file that does not show what it was believed to (the writer then
    /// re-syncs).
    func takeDiskReports(now: Date) -> Bool {
        disk.takeReports().reduce(false) { anyDiffers, report in
            switch report {
            case .written(let outcome):
                finishWrite(outcome, now: now)
                return anyDiffers
            case .checked(let differs):
                // A difference ends the check: the re-sync it brings reads every file again.
                if differs { unchecked = [] }
                checking = checkNextSlice()
                return anyDiffers || differs
            }
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

    /// Whether a batch is being written: the next waits for its outcome (``takeDiskReports(now:)``).
    var isWriting: Bool { writing != nil }

    /// Starts writing the waiting snapshot of each of `paths` as one durable batch on the disk's
    /// thread (``SnapshotDisk``), and returns those that wait without their timeline, to fetch
    /// (``fetchRequests(for:now:)``). Their outcome comes to ``takeDiskReports(now:)``.
    ///
    /// - Precondition: no batch is being written (``isWriting``).
    func write(_ paths: [SnapshotPath], now: Date) -> [SnapshotPath] {
        precondition(writing == nil, "a batch is being written already")
        defer { reportWaiting() }
        let (batch, unfetched) = takeBatch(paths)
        if !batch.isEmpty {
            writing = batch
            writingHeaders = Dictionary(uniqueKeysWithValues: batch.map { ($0.path, $0.snapshot.header) })
            disk.write(batch.map(\.file))
        }
        return unfetched
    }

    /// Takes what came of the batch being written: a written file reflects its snapshot, a
    /// failed one waits again and is tried after ``retryDelay``, or sooner by a new snapshot.
    private func finishWrite(_ outcome: SnapshotDisk.Outcome, now: Date) {
        guard let batch = writing else { return }
        (writing, writingHeaders) = (nil, [:])
        finish(batch, outcome, now: now)
    }

    /// What waits when the writer stops: once the batch being written is on the device and its
    /// outcome taken (a file that failed in it waits again, for its retry), writes the waiting
    /// snapshot of each of the files `due` then names, on this thread.
    func writeBeforeStop(now: Date, due: () -> [SnapshotPath]) {
        unchecked = []  // a check on its way ends with its slice on the disk: nothing needs the rest
        disk.waitForJobs()
        _ = takeDiskReports(now: now)
        let (batch, _) = takeBatch(due())
        guard !batch.isEmpty else { return }
        finish(batch, disk.writeNow(batch.map(\.file)), now: now)
    }

    /// One file of a batch, from the moment it leaves ``waiting`` to its outcome.
    private struct FileWrite {
        let path: SnapshotPath
        let waited: Waiting
        let snapshot: WidgetSnapshot
        let data: Data
        /// Lasts the batch's write: the files share its barriers.
        let span: (any Span)?

        /// What the disk writes: the bytes, and where.
        var file: (data: Data, path: String) { (data, path.file) }
    }

    /// Takes the waiting snapshot of each of `paths` out of ``waiting``, encoded; the paths that
    /// wait without their timeline stay, and are returned.
    private func takeBatch(_ paths: [SnapshotPath]) -> (batch: [FileWrite], unfetched: [SnapshotPath]) {
        var batch: [FileWrite] = []
        var unfetched: [SnapshotPath] = []
        for path in paths {
            guard let waited = waiting[path] else { continue }
            guard let snapshot = waited.snapshot else {
                unfetched.append(path)
                continue
            }
            waiting[path] = nil
            waitingBytes -= snapshot.timelineByteCount
            if let fetch = fetches.removeValue(forKey: path) { awaited[fetch.id] = nil }
            do {
                let data = try snapshot.encoded(with: codec)
                batch.append(FileWrite(path: path, waited: waited, snapshot: snapshot, data: data, span: MessageSpan.start("write snapshot file", continuing: waited.trace)))
            } catch {
                logger.error("snapshot not encodable", metadata: ["widgetbus.file": "\(path)", "widgetbus.error": "\(error)"])
            }
        }
        if waiting.isEmpty { waiting = [:] }  // a drained backlog gives its table's memory back
        return (batch, unfetched)
    }

    private func finish(_ batch: [FileWrite], _ outcome: SnapshotDisk.Outcome, now: Date) {
        defer { reportWaiting() }
        metrics.batch.record(batch.count)
        batchSize.wrote(batch.count, in: outcome.filesTime)
        for (index, write) in batch.enumerated() {
            let trace = write.waited.trace
            defer { write.span?.end() }
            if let error = outcome.failures[index] {
                write.span?.recordError(error)
                metrics.failed.increment()
                logger.error("snapshot write failed", metadata: .traced(trace, ["widgetbus.file": "\(write.path)", "widgetbus.error": "\(error)"]))
                if waiting[write.path] == nil {
                    // Within the budget only: past it the retry fetches the timeline again.
                    var retry = write.waited
                    retry.content = nil
                    if waitingBytes + write.snapshot.timelineByteCount <= waitingBudget {
                        retry.content = Boxed(write.snapshot)
                        waitingBytes += write.snapshot.timelineByteCount
                    }
                    waiting[write.path] = retry
                }
                retries.schedule(write.path, at: now.addingTimeInterval(Self.retryDelay))
            } else {
                reflected[write.path] = write.snapshot.header
                metrics.written.increment()
                metrics.lag.recordInterval(since: write.waited.since, end: outcome.finished)
                logger.debug("snapshot written", metadata: .traced(trace, ["widgetbus.file": "\(write.path)"]))
            }
        }
    }

    private func reportWaiting() {
        metrics.waitingBytes.record(waitingBytes)
        metrics.waitingFiles.record(waiting.count + (writing?.count ?? 0))
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
        Self.header(onDiskAt: path.file, codec: codec)
    }

    /// The header of the snapshot file at `file`; nil when it is missing or unreadable.
    static func header(onDiskAt file: String, codec: WireCodec) -> WidgetSnapshot.Header? {
        FileManager.default.contents(atPath: file).flatMap { try? codec.decode(WidgetSnapshot.Header.self, from: $0) }
    }
}

/// How many due files a batch holds: as many as take about ``target`` to write at the speed of
/// the last batch, beside its two barriers (whose cost does not depend on the files).
///
/// When the files fall behind, the barriers bound how fast they catch up: on a busy disk each
/// takes tens of milliseconds, whatever the batch holds, so a batch must be large to share them
/// among many files. It is written off the loop, so its size costs the loop nothing; what bounds
/// it is a file's wait for the files of the batch ahead of it (about ``target``, however slow
/// they are: writing a new file can take 100 times as long as rewriting one, as ext4 without a
/// journal scans the recently deleted inodes for each new one) and the batch's memory (each file
/// as its timeline and its encoded bytes, at most ``range``'s upper bound of them).
struct WriteBatchSize {
    static let target = Duration.milliseconds(200)
    static let range = 16...1_024

    /// The files the next batch may hold.
    private(set) var files = range.upperBound

    /// Sizes the next batch from the last: `count` files written in `duration`, barriers aside.
    mutating func wrote(_ count: Int, in duration: Duration) {
        guard count > 0 else { return }
        let perFile = duration / count
        let fitting = perFile > .zero ? Int(Self.target / perFile) : Self.range.upperBound
        files = min(max(fitting, Self.range.lowerBound), Self.range.upperBound)
    }
}
