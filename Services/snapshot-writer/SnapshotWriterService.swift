import Foundation
import Logging
import ServiceLifecycle
import ServiceSupport
import WidgetBusProtocol
import ZeroMQ

/// Keeps one snapshot file per user and widget kind equal to the timeline timeline-service last
/// published for it: follows its `TimelineChanged` events (re-synced from its timeline snapshot
/// at start, on any gap and on a new epoch), writes each timeline's bytes inside the file's
/// envelope on a coalescing schedule, and checks every file against the disk after each re-sync
/// and periodically, so a file deleted by hand or missed while stopped is rewritten. It derives
/// nothing: timelines, their refreshes at `validUntil` and the metrics in them are
/// timeline-service's.
struct SnapshotWriterService: Service {
    struct Configuration: Sendable {
        var timelineEventsEndpoint: String
        var timelinesEndpoint: String
        var snapshotDirectory: String
        var coalesceDelay: Duration
        var diskCheckInterval: Duration

        init(environment: [String: String]) throws {
            timelineEventsEndpoint = BusEndpoint.timelineEvents.resolve(in: environment)
            timelinesEndpoint = BusEndpoint.timelines.resolve(in: environment)
            snapshotDirectory = EnvironmentSetting.snapshotDirectory.resolve(in: environment)
            coalesceDelay = .milliseconds(try EnvironmentSetting.snapshotCoalesceDelay.integer(in: environment, range: 0...10_000))
            diskCheckInterval = .seconds(try EnvironmentSetting.snapshotDiskCheck.integer(in: environment, range: 1...86_400))
        }
    }

    /// Upper bound on how long a stop request waits for the loop to notice it.
    static let pollInterval = Duration.milliseconds(100)
    /// Files written per turn of the loop, so a large catch-up still lets it read events and stop.
    static let writeBatch = 256
    /// The grid writes fall due on: files first changed within the same 10 ms are written as one
    /// batch, sharing its two barriers (``AtomicFileWriter/write(_:)``).
    static let writeGranularity = Duration.milliseconds(10)

    let configuration: Configuration
    let logger: Logger

    func run() async throws {
        try await DedicatedThread.run(name: "snapshot-writer") { stop in
            try serve(until: stop)
        }
    }

    private func serve(until stop: StopSignal) throws {
        let codec = WireCodec()
        let files = try SnapshotFiles(root: configuration.snapshotDirectory, codec: codec, logger: logger)
        let context = try ZMQContext()
        defer { context.terminate() }
        let timelines = try SequencedReplica(
            PublishedTimelines(), context: context, eventsEndpoint: configuration.timelineEventsEndpoint,
            snapshotEndpoint: configuration.timelinesEndpoint, codec: codec, logger: logger)
        defer { timelines.close() }
        var schedule = CoalescingSchedule<SnapshotPath>(delay: configuration.coalesceDelay, granularity: Self.writeGranularity)
        let clock = ContinuousClock()
        var nextDiskCheck = clock.now + configuration.diskCheckInterval

        logger.info(
            "snapshot-writer ready",
            metadata: [
                "directory": "\(configuration.snapshotDirectory)", "coalesceDelay": "\(configuration.coalesceDelay)",
                "diskCheckInterval": "\(configuration.diskCheckInterval)",
                "timelineEvents": "\(configuration.timelineEventsEndpoint)", "timelines": "\(configuration.timelinesEndpoint)",
            ])

        while !stop.isRequested {
            let wait = [schedule.timeUntilNextDue(now: clock.now), files.timeUntilNextRetry()].compactMap { $0 }
                .reduce(Self.pollInterval, min)
            let ready = try ZMQPoller.poll(timelines.pollItems, timeoutMilliseconds: Int(wait.millisecondsRoundedUp))
            let syncedBefore = timelines.snapshotCount
            let received = try timelines.handle(ready: ready[...])
            let now = clock.now
            for path in files.take(received, readingDisk: timelines.snapshotCount != syncedBefore) + files.retriesDue() {
                schedule.add(path, now: now)
            }
            if now >= nextDiskCheck {
                nextDiskCheck = now + configuration.diskCheckInterval
                if files.anyDiffersFromDisk(timelines.model.latest) {
                    try timelines.resync(reason: "a snapshot file differs from the disk")
                }
            }
            files.write(schedule.takeDue(now: now, limit: Self.writeBatch))
        }
        files.write(schedule.takeAll())  // nothing coalesced is lost on stop
        logger.info(
            "snapshot-writer stopping",
            metadata: ["written": "\(files.writeCount)", "epoch": "\(timelines.epoch ?? "-")", "sequence": "\(timelines.sequence)"])
    }
}

extension EnvironmentSetting {
    static let snapshotCoalesceDelay = EnvironmentSetting(
        variable: "WIDGETBUS_SNAPSHOT_COALESCE_MS", defaultValue: "25",
        purpose: "milliseconds after a change within which further changes to the same snapshot file join one write")
    static let snapshotDiskCheck = EnvironmentSetting(
        variable: "WIDGETBUS_SNAPSHOT_DISK_CHECK_S", defaultValue: "60",
        purpose: "seconds between checks that rewrite snapshot files deleted or changed on disk")
}
