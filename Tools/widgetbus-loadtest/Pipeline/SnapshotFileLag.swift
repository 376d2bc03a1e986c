import Foundation
import ServiceSupport

/// How far the snapshot files lagged their timelines over a step, as snapshot-writer measures it
/// (`widgetbus_snapshot_file_lag_seconds`: from the turn that took a file's first timeline event
/// it did not show yet to the end of the file's durable write). The histogram is read once the
/// files have caught up before the step and again once they have after it, so that it counts
/// the files the step changed, not the set-up's or an earlier step's.
///
/// The writer's "caught up" is its gauge of files waiting at 0. Two limits: events it has not
/// taken yet (in libzmq's queue, or held while its replica re-syncs) are not counted in it, and
/// under a steady trickle of refreshes at `validUntil` it may rarely read 0, when the wait ends at
/// ``SnapshotWriterMetrics/catchUpLimit`` and the step says it did not catch up.
struct SnapshotFileLag: Codable, Sendable, Equatable {
    /// Files written between the two readings.
    var files: Int
    /// The share of them on disk within a second of their change (the bar: 99 %); nil when none
    /// was written.
    var withinOneSecond: Double?
    /// The histogram's bucket bounds under which half and 99 % of them were written; nil past its
    /// last bound (10 s).
    var p50AtMostSeconds: Double?
    var p99AtMostSeconds: Double?
    /// Whether the files had caught up at both readings; when not, the set-up's backlog may be
    /// counted in the step, or the files still waiting at the end are not (and would only add lag).
    var caughtUp: Bool
    /// How long the files took to catch up once the step's timelines had arrived.
    var catchUpSeconds: Double

    /// The lag between two readings; nil when the histogram is missing from either or went
    /// backwards (the writer restarted between them).
    init?(from before: [HistogramBucket], to after: [HistogramBucket], caughtUp: Bool, catchUpSeconds: Double) {
        let counts = after.map { bucket in
            (bucket.upperBound, bucket.count - (before.first { $0.upperBound == bucket.upperBound }?.count ?? .nan))
        }
        guard !before.isEmpty, !counts.isEmpty, counts.allSatisfy({ $0.1 >= 0 }) else { return nil }
        let total = counts[counts.count - 1].1
        func bound(holding share: Double) -> Double? {
            counts.first { $0.1 >= share * total }.map(\.0).flatMap { $0.isFinite ? $0 : nil }
        }
        files = Int(total)
        withinOneSecond = total > 0 ? (counts.last { $0.0 <= 1 }?.1 ?? 0) / total : nil
        p50AtMostSeconds = total > 0 ? bound(holding: 0.5) : nil
        p99AtMostSeconds = total > 0 ? bound(holding: 0.99) : nil
        self.caughtUp = caughtUp
        self.catchUpSeconds = catchUpSeconds
    }
}

/// snapshot-writer's metrics listener, where the load test reads the files' lag.
struct SnapshotWriterMetrics: Sendable {
    static let lagHistogram = "widgetbus_snapshot_file_lag_seconds"
    static let filesWaiting = "widgetbus_snapshot_files_waiting"
    /// The longest wait for the files to catch up, before a step and after it: 80,000 new files
    /// of a set-up take a minute or two on a slow disk.
    static let catchUpLimit = Duration.seconds(180)

    let url: URL

    /// The listener at `address` (`HOST:PORT`), or the one the local runner recorded under
    /// `localDirectory` (`run/snapshot-writer.http`); nil when neither is known.
    init?(address: String?, localDirectory: String?) {
        let recorded = localDirectory.flatMap {
            try? String(contentsOfFile: URL(fileURLWithPath: $0).appendingPathComponent("run/snapshot-writer.http").path, encoding: .utf8)
        }
        guard let address = (address ?? recorded)?.trimmingCharacters(in: .whitespacesAndNewlines), !address.isEmpty,
            let url = URL(string: "http://\(address)/metrics")
        else { return nil }
        self.url = url
    }

    /// Waits until no file waits for its write (at most ``catchUpLimit``), then reads the lag
    /// histogram; nil when the listener does not answer.
    func caughtUpLag() -> (buckets: [HistogramBucket], caughtUp: Bool, seconds: Double)? {
        let start = ContinuousClock.now
        while true {
            guard let page = MetricsPage(url: url) else { return nil }
            // A build without the gauge cannot say: read at once, not caught up as far as known.
            let waiting = page.value(Self.filesWaiting)
            let caughtUp = waiting == 0
            if caughtUp || waiting == nil || ContinuousClock.now - start >= Self.catchUpLimit {
                // The histogram from a reading after the gauge's: a batch that ended between the
                // two lines of one page is then counted.
                let buckets = (caughtUp ? MetricsPage(url: url) : page)?.buckets(Self.lagHistogram) ?? []
                return (buckets, caughtUp, (ContinuousClock.now - start).asSeconds)
            }
            Thread.sleep(forTimeInterval: 0.2)
        }
    }
}
