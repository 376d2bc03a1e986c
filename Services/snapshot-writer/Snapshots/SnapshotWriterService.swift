import Foundation
import Logging
import ServiceSupport
import WidgetBusProtocol

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
        /// It binds nothing: only its connections, with CURVE when configured.
        var binding: BusBinding

        public init(environment: [String: String]) throws {
            timelineEventsEndpoint = BusEndpoint.timelineEvents.resolve(in: environment)
            timelinesEndpoint = BusEndpoint.timelines.resolve(in: environment)
            snapshotDirectory = EnvironmentSetting.snapshotDirectory.resolve(in: environment)
            coalesceDelay = .milliseconds(try EnvironmentSetting.snapshotCoalesceDelay.integer(in: environment, range: 0...10_000))
            diskCheckInterval = .seconds(try EnvironmentSetting.snapshotDiskCheck.integer(in: environment, range: 1...86_400))
            binding = try BusBinding(connectingIn: environment)
        }
    }

    /// Files written per turn of the loop, so a large catch-up still lets it read events and stop.
    static let writeBatch = 256
    /// Events taken per turn: many times what arrives while a turn writes its ``writeBatch``
    /// (about 150 ms on a slow disk), so that under any load the events wait in
    /// ``SnapshotFiles``, one per file, and never pile up in libzmq's queue, which would hold
    /// every one of them and grow with the offered load.
    static let eventBatch = 4_096
    /// The grid writes fall due on: files first changed within the same 10 ms are written as one
    /// batch, sharing its two barriers (``AtomicFileWriter/write(_:)``).
    static let writeGranularity = Duration.milliseconds(10)
    /// How long the timeline events rest after each turn that takes some: files are written on a
    /// grid of ``writeGranularity`` anyway, so events taken once per step of it cost a file at
    /// most one step more, and a flood of events costs one turn per step instead of one per event.
    static var eventPacing: TimeInterval { writeGranularity.asSeconds }

    let configuration: Configuration
    let logger: Logger

    public var binding: BusBinding { configuration.binding }

    public init(configuration: Configuration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    public var name: String { "snapshot-writer" }

    public func start(on bus: Bus) throws {
        let files = try SnapshotFiles(root: configuration.snapshotDirectory, codec: bus.codec, logger: logger)
        var received: [PublishedTimeline] = []
        let timelines = try SequencedReplica(
            PublishedTimelines(), bus: bus, eventsEndpoint: configuration.timelineEventsEndpoint,
            snapshotEndpoint: configuration.timelinesEndpoint, batch: Self.eventBatch, pacing: Self.eventPacing,
            logger: logger
        ) { received += $0 }
        // Writes wait on the monotonic clock: a wall-clock step must not hold them back.
        var schedule = CoalescingSchedule<SnapshotPath>(delay: configuration.coalesceDelay, granularity: Self.writeGranularity)
        let clock = ContinuousClock()
        let wallClock = bus.clock
        var syncedBefore = 0

        // After a re-sync every file is read again: one changed while nothing was following is caught.
        bus.afterMessages { now in
            let readingDisk = timelines.snapshotCount != syncedBefore
            syncedBefore = timelines.snapshotCount
            for path in files.take(received, readingDisk: readingDisk, now: now) { schedule.add(path, now: clock.now) }
            received.removeAll()
        }
        bus.timer(dueAt: { schedule.timeUntilNextDue(now: clock.now).map { wallClock.now + $0.asSeconds } }) { now in
            files.write(schedule.takeDue(now: clock.now, limit: Self.writeBatch), now: now)
        }
        bus.timer(dueAt: { files.nextRetry }) { now in
            for path in files.retriesDue(now: now) { schedule.add(path, now: clock.now) }
        }
        bus.every(configuration.diskCheckInterval.asSeconds) { _ in
            if files.anyDiffersFromDisk(timelines.model.latest) {
                try timelines.resync(reason: "a snapshot file differs from the disk")
            }
        }
        bus.onStop { now in
            files.write(schedule.takeAll(), now: now)  // nothing coalesced is lost on stop
        }

        logger.info(
            "snapshot-writer ready",
            metadata: [
                "widgetbus.directory": "\(configuration.snapshotDirectory)", "widgetbus.coalesce_delay": "\(configuration.coalesceDelay)",
                "widgetbus.disk_check_interval": "\(configuration.diskCheckInterval)",
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
}
