import Foundation
import Logging
import ServiceLifecycle
import ServiceSupport
import WidgetBusProtocol
import ZeroMQ

/// Keeps one snapshot file per user and widget kind equal to intent-handler's state (and, for the
/// Stress Monitor widget, metrics-ingest's aggregate): a replica of each (re-synced from snapshots
/// at start and on any gap), a coalescing schedule of the files their changes touch, a refresh of
/// every file when its timeline runs out, and a check of every file against the disk after each
/// re-sync and periodically, so a file deleted by hand or missed while stopped is rewritten.
struct SnapshotWriterService: Service {
    struct Configuration: Sendable {
        var stateEventsEndpoint: String
        var snapshotEndpoint: String
        var metricsEventsEndpoint: String
        var metricsSnapshotEndpoint: String
        var snapshotDirectory: String
        var coalesceDelay: Duration
        var diskCheckInterval: Duration

        init(environment: [String: String]) throws {
            stateEventsEndpoint = BusEndpoint.stateEvents.resolve(in: environment)
            snapshotEndpoint = BusEndpoint.stateSnapshot.resolve(in: environment)
            metricsEventsEndpoint = BusEndpoint.metricsEvents.resolve(in: environment)
            metricsSnapshotEndpoint = BusEndpoint.metricsSnapshot.resolve(in: environment)
            snapshotDirectory = EnvironmentSetting.snapshotDirectory.resolve(in: environment)
            coalesceDelay = .milliseconds(try EnvironmentSetting.snapshotCoalesceDelay.integer(in: environment, range: 0...10_000))
            diskCheckInterval = .seconds(try EnvironmentSetting.snapshotDiskCheck.integer(in: environment, range: 1...86_400))
        }
    }

    /// Upper bound on how long a stop request waits for the loop to notice it.
    static let pollInterval = Duration.milliseconds(100)
    /// Files written per turn of the loop, so a large catch-up still lets it read events and stop.
    static let writeBatch = 256

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
        let replicas = try WidgetReplicas(
            context: context, stateEventsEndpoint: configuration.stateEventsEndpoint,
            stateSnapshotEndpoint: configuration.snapshotEndpoint, metricsEventsEndpoint: configuration.metricsEventsEndpoint,
            metricsSnapshotEndpoint: configuration.metricsSnapshotEndpoint, codec: codec, logger: logger)
        defer { replicas.close() }
        var schedule = CoalescingSchedule<SnapshotPath>(delay: configuration.coalesceDelay)
        var checkedSnapshots = replicas.snapshotCount
        let clock = ContinuousClock()
        var nextDiskCheck = clock.now + configuration.diskCheckInterval

        logger.info(
            "snapshot-writer ready",
            metadata: [
                "directory": "\(configuration.snapshotDirectory)", "coalesceDelay": "\(configuration.coalesceDelay)",
                "diskCheckInterval": "\(configuration.diskCheckInterval)",
                "stateEvents": "\(configuration.stateEventsEndpoint)", "snapshot": "\(configuration.snapshotEndpoint)",
                "metricsEvents": "\(configuration.metricsEventsEndpoint)", "metricsSnapshot": "\(configuration.metricsSnapshotEndpoint)",
            ])

        while !stop.isRequested {
            let wait = [schedule.timeUntilNextDue(now: clock.now), files.timeUntilNextRefresh()].compactMap { $0 }
                .reduce(Self.pollInterval, min)
            let ready = try ZMQPoller.poll(replicas.pollItems, timeoutMilliseconds: Int(wait.millisecondsRoundedUp))
            let changed = try replicas.handle(ready: ready[...])
            let now = clock.now
            for affected in changed {
                if let path = files.path(for: affected.widget) { schedule.add(path, now: now) }
            }
            for path in files.refreshesDue() { schedule.add(path, now: now) }
            if replicas.snapshotCount != checkedSnapshots || now >= nextDiskCheck {
                checkedSnapshots = replicas.snapshotCount
                nextDiskCheck = now + configuration.diskCheckInterval
                for path in files.pathsDifferingFromDisk(in: replicas) { schedule.add(path, now: now) }
            }
            files.write(schedule.takeDue(now: now, limit: Self.writeBatch), from: replicas)
        }
        files.write(schedule.takeAll(), from: replicas)  // nothing coalesced is lost on stop
        logger.info(
            "snapshot-writer stopping",
            metadata: [
                "written": "\(files.writeCount)", "sequence": "\(replicas.state.sequence)",
                "metricsSequence": "\(replicas.metrics.sequence)",
            ])
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

extension Duration {
    /// Whole milliseconds, rounded up so a wait never ends before its deadline.
    var millisecondsRoundedUp: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
    }
}
