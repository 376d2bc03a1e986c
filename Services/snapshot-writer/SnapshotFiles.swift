import Foundation
import Logging
import ServiceSupport
import WidgetBusProtocol
import WidgetDomain

/// The snapshot files under one root, mirroring the replica: it knows what each file reflects
/// (its stamp), writes a widget's snapshot only when its file reflects another state, and
/// re-reads the disk when asked, so a file deleted or damaged by hand is caught.
final class SnapshotFiles {
    let root: String
    private let writer = AtomicFileWriter()
    private let codec: WireCodec
    private let logger: Logger
    /// What each file reflects, as last written or read; absent when missing or unreadable.
    private var stamps: [SnapshotPath: WidgetSnapshot.Stamp] = [:]
    /// Files written since start.
    private(set) var writeCount = 0
    /// Writes in flight at once: the file system commits concurrent fsyncs together, so eight
    /// write several times more files per second than one (docs/SNAPSHOTS.md).
    static let writesInFlight = 8

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

    /// Reads the file of every widget of the replicas and returns those that do not reflect what
    /// they hold: missing, unreadable, of another schema, version or zone.
    func pathsDifferingFromDisk(in replica: WidgetReplicas) -> [SnapshotPath] {
        replica.allWidgets.compactMap { widget in
            guard let path = path(for: widget) else { return nil }
            stamps[path] = FileManager.default.contents(atPath: path.file).flatMap {
                try? codec.decode(WidgetSnapshot.Stamp.self, from: $0)
            }
            return stamps[path] == replica.snapshotStamp(user: path.user, kind: path.kind) ? nil : path
        }
    }

    /// Writes the replica's current snapshot to each of `paths` whose file reflects another
    /// state, ``writesInFlight`` at a time. A failed write is logged and retried at the next
    /// disk check, or sooner by a new change.
    func write(_ paths: [SnapshotPath], from replica: WidgetReplicas, now: Date = Date()) {
        var pending: [(path: SnapshotPath, stamp: WidgetSnapshot.Stamp, data: Data)] = []
        for path in paths {
            guard let snapshot = replica.snapshot(user: path.user, kind: path.kind, now: now), stamps[path] != snapshot.stamp
            else { continue }
            do {
                pending.append((path, snapshot.stamp, try codec.encode(snapshot)))
            } catch {
                logger.error("snapshot not encodable", metadata: ["file": "\(path)", "error": "\(error)"])
            }
        }
        let failures = writer.write(pending.map { ($0.data, $0.path.file) }, concurrency: Self.writesInFlight)
        for (index, write) in pending.enumerated() {
            if let error = failures[index] {
                logger.error("snapshot write failed", metadata: ["file": "\(write.path)", "error": "\(error)"])
            } else {
                stamps[write.path] = write.stamp
                writeCount += 1
            }
        }
    }
}

extension WidgetReplicas {
    /// What the file of `user`'s `kind` must reflect; nil when the widget has nothing to show
    /// (no state of its app and, for a kind that shows them, no metrics).
    func snapshotStamp(user: String, kind: WidgetKind) -> WidgetSnapshot.Stamp? {
        guard hasContent(user: user, kind: kind) else { return nil }
        return WidgetSnapshot.Stamp(
            stateVersion: state.record(user: user, app: kind.app)?.version ?? 0,
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
