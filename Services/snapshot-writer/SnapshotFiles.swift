import Foundation
import Logging
import ServiceSupport
import WidgetBusProtocol
import WidgetDomain

/// The snapshot files under one root, mirroring the replica: it knows what each file reflects
/// (its stamp) and when its timeline runs out, writes a widget's snapshot only when its file
/// reflects another state or has run out, and re-reads the disk when asked, so a file deleted
/// or damaged by hand is caught.
final class SnapshotFiles {
    /// A file's content as far as being current goes.
    private struct Reflected {
        var stamp: WidgetSnapshot.Stamp
        var validUntil: Date?

        /// Whether the file shows what `stamp` says at `now`.
        func isCurrent(for stamp: WidgetSnapshot.Stamp?, at now: Date) -> Bool {
            self.stamp == stamp && validUntil.map { now < $0 } ?? true
        }
    }

    /// The soonest a file is rewritten for time alone: a timeline that runs out the moment it is
    /// built would otherwise be rewritten on every turn.
    static let minimumRefresh: TimeInterval = 1
    /// How long a failed write waits before it is tried again (unless a change comes first).
    static let retryDelay: TimeInterval = 1

    private let writer = AtomicFileWriter()
    private let root: String
    private let codec: WireCodec
    private let logger: Logger
    /// What each file reflects, as last written or read; absent when missing or unreadable.
    private var reflected: [SnapshotPath: Reflected] = [:]
    /// Files to write again at a date of their own: when their timeline runs out, or to retry.
    private var refreshes = RefreshSchedule<SnapshotPath>()
    /// Files written since start.
    private(set) var writeCount = 0

    /// Creates the root and removes the temporary files a crash left under it.
    init(root: String, codec: WireCodec, logger: Logger) throws {
        try writer.createDirectory(root)
        let leftovers = AtomicFileWriter.removeTemporaryFiles(under: root)
        if !leftovers.isEmpty {
            logger.notice("removed temporary files left by a crash", metadata: ["count": "\(leftovers.count)"])
        }
        self.root = root
        self.codec = codec
        self.logger = logger
    }

    /// The file of `widget`, or nil (logged) when its user id or kind could leave the root.
    func path(for widget: WidgetReplicas.Widget) -> SnapshotPath? {
        do {
            return try SnapshotPath(root: root, user: widget.user, kind: widget.kind)
        } catch {
            logger.warning("snapshot refused", metadata: ["reason": "\(error)"])
            return nil
        }
    }

    /// Reads the file of every widget of the replicas and returns those that are not current:
    /// missing, unreadable, of another schema, widget, version or zone, or run out.
    func pathsDifferingFromDisk(in replica: WidgetReplicas, now: Date = Date()) -> [SnapshotPath] {
        replica.allWidgets.compactMap { widget in
            guard let path = path(for: widget) else { return nil }
            let onDisk = FileManager.default.contents(atPath: path.file).flatMap {
                try? codec.decode(WidgetSnapshot.Header.self, from: $0)
            }
            reflected[path] = onDisk.map { Reflected(stamp: $0.stamp, validUntil: $0.validUntil) }
            guard let current = reflected[path], current.isCurrent(for: replica.snapshotStamp(user: path.user, kind: path.kind), at: now)
            else { return path }
            scheduleRefresh(path, validUntil: current.validUntil, now: now)
            return nil
        }
    }

    /// The files due for a refresh at `now`: their timeline ran out, or their write failed.
    func refreshesDue(now: Date = Date()) -> [SnapshotPath] {
        refreshes.takeDue(now: now)
    }

    /// How long until the next refresh is due; nil when none is scheduled.
    func timeUntilNextRefresh(now: Date = Date()) -> Duration? {
        refreshes.timeUntilNextDue(now: now)
    }

    /// Writes the replica's current snapshot to each of `paths` whose file is not current,
    /// ``WidgetSnapshot/writesInFlight`` at a time. A failed write is logged and tried again
    /// after ``retryDelay``, or sooner by a new change.
    func write(_ paths: [SnapshotPath], from replica: WidgetReplicas, now: Date = Date()) {
        var pending: [(path: SnapshotPath, snapshot: WidgetSnapshot, data: Data)] = []
        for path in paths {
            guard let snapshot = replica.snapshot(user: path.user, kind: path.kind, now: now),
                reflected[path]?.isCurrent(for: snapshot.stamp, at: now) != true
            else { continue }
            do {
                pending.append((path, snapshot, try codec.encode(snapshot)))
            } catch {
                logger.error("snapshot not encodable", metadata: ["file": "\(path)", "error": "\(error)"])
            }
        }
        let failures = writer.write(pending.map { ($0.data, $0.path.file) }, concurrency: WidgetSnapshot.writesInFlight)
        for (index, write) in pending.enumerated() {
            if let error = failures[index] {
                logger.error("snapshot write failed", metadata: ["file": "\(write.path)", "error": "\(error)"])
                refreshes.schedule(write.path, at: now.addingTimeInterval(Self.retryDelay))
            } else {
                reflected[write.path] = Reflected(stamp: write.snapshot.stamp, validUntil: write.snapshot.validUntil)
                scheduleRefresh(write.path, validUntil: write.snapshot.validUntil, now: now)
                writeCount += 1
            }
        }
    }

    private func scheduleRefresh(_ path: SnapshotPath, validUntil: Date?, now: Date) {
        guard let validUntil else { return }
        refreshes.schedule(path, at: max(validUntil, now.addingTimeInterval(Self.minimumRefresh)))
    }
}

extension WidgetReplicas {
    /// What the file of `user`'s `kind` must reflect; nil when the widget has nothing to show
    /// (no state of its app and, for a kind that shows them, no metrics).
    func snapshotStamp(user: String, kind: WidgetKind) -> WidgetSnapshot.Stamp? {
        guard hasContent(user: user, kind: kind) else { return nil }
        return WidgetSnapshot.Stamp(
            kind: kind, user: user, stateVersion: state.record(user: user, app: kind.app)?.version ?? 0,
            metricsVersion: kind.showsMetrics ? metrics.record(user: user)?.version ?? 0 : nil,
            timeZone: timeZoneIdentifier(user: user))
    }

    /// The snapshot of `user`'s `kind` as of `now`; nil when the widget has nothing to show.
    func snapshot(user: String, kind: WidgetKind, now: Date) -> WidgetSnapshot? {
        guard hasContent(user: user, kind: kind) else { return nil }
        return WidgetSnapshot(
            timeline: timeline(kind: kind, user: user, now: now), timeZone: timeZoneIdentifier(user: user), generatedAt: now)
    }

    /// The zone as the user set it; the one ``StateReplica/timeZone(user:)`` computes in.
    private func timeZoneIdentifier(user: String) -> String {
        state.profiles[user]?.timeZone ?? UserProfile.defaultTimeZone
    }
}
