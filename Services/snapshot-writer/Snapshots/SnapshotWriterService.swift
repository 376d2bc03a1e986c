import BusRuntime
import Foundation
import Logging
import ServiceSupport
import Storage
import WidgetBusProtocol
import ZeroMQ

/// Keeps one snapshot file per user and widget kind equal to the timeline timeline-service last
/// published for it: follows its `TimelineChanged` events (re-synced from its timeline snapshot
/// at start, on any gap and on a new epoch), writes each timeline's bytes inside the file's
/// envelope on a coalescing schedule, and checks every file against the disk after each re-sync
/// and periodically, so a file deleted by hand or missed while stopped is rewritten. It derives
/// nothing: timelines, their refreshes at `validUntil` and the metrics in them are
/// timeline-service's.
public struct SnapshotWriterService: BusService {
    public struct Configuration: Sendable {
        var timelineEventsEndpoint: String
        var timelinesEndpoint: String
        var snapshotDirectory: String
        var coalesceDelay: Duration
        var diskCheckInterval: Duration
        /// The bytes of timeline that may wait in memory for their writes (``SnapshotFiles``).
        var waitingBudget: Int
        /// It binds nothing: only its connections, with CURVE when configured.
        var binding: BusBinding

        public init(environment: [String: String]) throws {
            timelineEventsEndpoint = BusEndpoint.timelineEvents.resolve(in: environment)
            timelinesEndpoint = BusEndpoint.timelines.resolve(in: environment)
            snapshotDirectory = EnvironmentSetting.snapshotDirectory.resolve(in: environment)
            coalesceDelay = .milliseconds(try EnvironmentSetting.snapshotCoalesceDelay.integer(in: environment, range: 0...10_000))
            diskCheckInterval = .seconds(try EnvironmentSetting.snapshotDiskCheck.integer(in: environment, range: 1...86_400))
            waitingBudget = try EnvironmentSetting.snapshotWaitingBudget.integer(in: environment, range: 0...16_777_216) * 1024
            binding = try BusBinding(connectingIn: environment)
        }
    }

    /// Events taken per turn: many times what arrives during a rest of the subscription, so that
    /// a backlog (the process held off the CPU for a while) moves into ``SnapshotFiles``, one per
    /// file, at once instead of staying in libzmq's queue, which holds every one of them. No
    /// batch's barriers hold a turn: the batches are written on a thread of their own
    /// (``SnapshotDisk``).
    static let eventBatch = 4_096
    /// The grid writes fall due on: files first changed within the same 10 ms are written as one
    /// batch, sharing its two barriers (``AtomicFileWriter/write(_:)``).
    static let writeGranularity = Duration.milliseconds(10)
    /// How long the timeline events rest after each turn that takes some: files are written on a
    /// grid of ``writeGranularity`` anyway, so events taken once per step of it cost a file at
    /// most one step more, and a flood of events costs one turn per step instead of one per event.
    static var eventPacing: TimeInterval { writeGranularity.asSeconds }
    /// How often the memory freed since is given back to the system (``FreedMemory``).
    static let memoryTrimInterval: TimeInterval = 1

    let configuration: Configuration
    let logger: Logger

    public var binding: BusBinding { configuration.binding }

    public init(configuration: Configuration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    public var name: String { "snapshot-writer" }

    public func start(on bus: Bus) throws {
        let files = try SnapshotFiles(
            root: configuration.snapshotDirectory, waitingBudget: configuration.waitingBudget, codec: bus.codec, logger: logger)
        // Writes wait on the monotonic clock: a wall-clock step must not hold them back.
        var schedule = CoalescingSchedule<SnapshotPath>(delay: configuration.coalesceDelay, granularity: Self.writeGranularity)
        let clock = ContinuousClock()
        let wallClock = bus.clock
        // Each timeline joins its file's wait as it is taken, so a turn's events are never all
        // held at once beside the timelines already waiting.
        let timelines = try SequencedReplica(
            PublishedTimelines(), bus: bus, eventsEndpoint: configuration.timelineEventsEndpoint,
            snapshotEndpoint: configuration.timelinesEndpoint, batch: Self.eventBatch, pacing: Self.eventPacing,
            logger: logger
        ) { changes in
            for change in changes {
                switch change {
                case .published(let timeline):
                    if let path = files.take(timeline, now: wallClock.now) { schedule.add(path, now: clock.now) }
                case .resynced(let snapshots):
                    for path in files.takeResync(snapshots, now: wallClock.now) { schedule.add(path, now: clock.now) }
                }
            }
        }
        /// Files whose fetched timeline came this turn, to write with the next batch.
        var fetched: [SnapshotPath] = []

        // Timelines the budget kept out of memory are asked of timeline-service when due; the
        // files answered join the next batch at once: their write was due already, and a
        // fetched timeline held longer would stretch the budget.
        let fetches = try bus.dealer(connectedTo: configuration.timelinesEndpoint) { frames in
            if let payload = frames.last, let path = files.takeFetched(payload) { fetched.append(path) }
        }
        // One batch at a time is written on the disk's thread; the next waits for its outcome,
        // taking the newest timelines that came meanwhile.
        bus.timer(dueAt: {
            guard !files.isWriting else { return nil }
            return fetched.isEmpty ? schedule.timeUntilNextDue(now: clock.now).map { wallClock.now + $0.asSeconds } : wallClock.now
        }) { now in
            let due = fetched + schedule.takeDue(now: clock.now, limit: max(0, files.batchLimit - fetched.count))
            fetched.removeAll()
            let unfetched = files.write(due, now: now)
            for request in files.fetchRequests(for: unfetched, now: now) {
                // Not sent (timeline-service not connected): the retry asks again.
                _ = try fetches.send([Data(), request], dontWait: true)
            }
        }
        bus.timer(dueAt: { files.nextRetry }) { now in
            for path in files.retriesDue(now: now) { schedule.add(path, now: clock.now) }
        }
        // Timelines waiting and libzmq's queue come and go in bursts; what they freed goes back
        // to the system, so that the resident memory follows the budget instead of the last peak.
        bus.every(Self.memoryTrimInterval) { _ in FreedMemory.returnToSystem() }
        bus.every(configuration.diskCheckInterval.asSeconds) { _ in files.checkDisk() }
        bus.onStop { now in
            // Nothing coalesced is lost on stop: what waits with its timeline (fetched, due, or
            // failed once, in the batch being written too) is written after that batch; a file
            // waiting without it is caught by the next start's re-sync, which reads every file.
            files.writeBeforeStop(now: now) { fetched + files.retriesDue(now: .distantFuture) + schedule.takeAll() }
        }
        bus.receive(from: files.disk.wakeUps) { _ in
            // A check that ends as the writer stops leaves the re-sync to the next start's.
            if files.takeDiskReports(now: wallClock.now), !bus.isStopping {
                try timelines.resync(reason: "a snapshot file differs from the disk")
            }
        }

        logger.info(
            "snapshot-writer ready",
            metadata: [
                "widgetbus.directory": "\(configuration.snapshotDirectory)", "widgetbus.coalesce_delay": "\(configuration.coalesceDelay)",
                "widgetbus.disk_check_interval": "\(configuration.diskCheckInterval)", "widgetbus.waiting_budget_bytes": "\(configuration.waitingBudget)",
                "widgetbus.endpoint.timeline_events": "\(configuration.timelineEventsEndpoint)", "widgetbus.endpoint.timelines": "\(configuration.timelinesEndpoint)",
            ])
        bus.onStop { _ in
            logger.info(
                "snapshot-writer stopping",
                metadata: ["widgetbus.epoch": "\(timelines.epoch ?? "-")", "widgetbus.sequence": "\(timelines.sequence)"])
        }
    }
}

extension EnvironmentSetting {
    public static let snapshotCoalesceDelay = EnvironmentSetting(
        variable: "WIDGETBUS_SNAPSHOT_COALESCE_MS", defaultValue: "25",
        purpose: "milliseconds after a change within which further changes to the same snapshot file join one write")
    public static let snapshotDiskCheck = EnvironmentSetting(
        variable: "WIDGETBUS_SNAPSHOT_DISK_CHECK_S", defaultValue: "60",
        purpose: "seconds between checks that rewrite snapshot files deleted or changed on disk")
    public static let snapshotWaitingBudget = EnvironmentSetting(
        variable: "WIDGETBUS_SNAPSHOT_WAITING_KB", defaultValue: "16384",
        purpose: "kibibytes of timelines that may wait in memory for their files' writes; past it a change keeps only its stamp and its timeline is asked of timeline-service when due")
}
