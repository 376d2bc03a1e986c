import Foundation
import Logging
import Testing
import WidgetBusProtocol
import WidgetDomain

@testable import BusRuntime
@testable import Snapshots

/// The files' side of a batch written on the disk's thread: from the moment it leaves the wait
/// (``SnapshotFiles/write(_:now:)``) to its outcome (``SnapshotFiles/finishWrite(_:now:)``), on a
/// real folder.
@Suite struct SnapshotFilesTests {
    let codec = WireCodec()
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("snapshot-files-\(UUID().uuidString)").path

    func published(_ user: String, version: UInt64) throws -> PublishedTimeline {
        let body = TimelineBody(
            kind: .tensionCheck, user: user, stateVersion: version, timeZone: "UTC", generatedAt: now,
            timeline: WidgetState.initial(for: .tensionCheck).timeline(for: .tensionCheck, now: now, timeZone: .gmt))
        return PublishedTimeline(snapshot: try #require(WidgetSnapshot(timelineBody: JSONFieldScanner(try codec.encode(body)))), trace: nil)
    }

    /// The state version the file of `user`'s Tension Check widget shows; nil without a file.
    func fileVersion(_ user: String) -> UInt64? {
        FileManager.default.contents(atPath: "\(root)/\(user)/\(WidgetKind.tensionCheck.rawValue).json")
            .flatMap { JSONFieldScanner($0).unsignedInteger("stateVersion") }
    }

    /// The outcome of the batch handed to the disk, once it is on the device.
    func outcome(of files: SnapshotFiles) throws -> SnapshotDisk.Outcome {
        files.disk.waitForBatches()
        return try #require(files.disk.written.take().first)
    }

    /// The bus thread goes on while a batch is on the disk's thread: a newer timeline of a file
    /// being written waits for the next batch (never mixed into the one on its way), and the
    /// periodic disk check does not mistake a file being rewritten for one changed by hand.
    @Test func aFileBeingWrittenTakesNewerTimelinesForTheNextBatchAndIsNotCheckedMeanwhile() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let files = try SnapshotFiles(root: root, waitingBudget: 1 << 20, codec: codec, logger: Logger(label: "test"))
        let ann = try #require(files.take(try published("ann", version: 1), now: now))
        #expect(files.write([ann], now: now).isEmpty)
        files.finishWrite(try outcome(of: files), now: now)
        #expect(fileVersion("ann") == 1)

        #expect(files.take(try published("ann", version: 2), now: now) == ann)
        #expect(files.write([ann], now: now).isEmpty)
        #expect(files.isWriting)
        files.disk.waitForBatches()
        // On disk already, not yet reflected: not a file changed by hand.
        #expect(fileVersion("ann") == 2)
        #expect(!files.anyDiffersFromDisk())
        // A newer timeline while the batch is on its way waits for the next one.
        #expect(files.take(try published("ann", version: 3), now: now) == ann)
        files.finishWrite(try outcome(of: files), now: now)
        #expect(!files.isWriting)
        #expect(fileVersion("ann") == 2)
        #expect(files.write([ann], now: now).isEmpty)
        files.finishWrite(try outcome(of: files), now: now)
        #expect(fileVersion("ann") == 3)
        #expect(!files.anyDiffersFromDisk())

        // A file changed by hand is still caught once nothing is on its way.
        try FileManager.default.removeItem(atPath: "\(root)/ann/\(WidgetKind.tensionCheck.rawValue).json")
        #expect(files.anyDiffersFromDisk())
    }

    /// A failed file of a batch waits again, with its timeline, and is tried after the retry delay.
    @Test func aFileThatFailsWaitsAgainForItsRetry() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let files = try SnapshotFiles(root: root, waitingBudget: 1 << 20, codec: codec, logger: Logger(label: "test"))
        // A plain file where the user's folder should be: the write cannot create it.
        try Data("in the way".utf8).write(to: URL(fileURLWithPath: "\(root)/bob"))
        let bob = try #require(files.take(try published("bob", version: 1), now: now))
        #expect(files.write([bob], now: now).isEmpty)
        let failed = try outcome(of: files)
        #expect(failed.failures.count == 1)
        files.finishWrite(failed, now: now)
        #expect(files.nextRetry == now.addingTimeInterval(SnapshotFiles.retryDelay))

        try FileManager.default.removeItem(atPath: "\(root)/bob")
        #expect(files.retriesDue(now: now.addingTimeInterval(SnapshotFiles.retryDelay)) == [bob])
        #expect(files.write([bob], now: now).isEmpty)
        files.finishWrite(try outcome(of: files), now: now)
        #expect(fileVersion("bob") == 1)
    }

    /// What waits when the writer stops is written after the batch on its way, on the calling thread.
    @Test func theWritesBeforeStopFollowTheBatchOnItsWay() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let files = try SnapshotFiles(root: root, waitingBudget: 1 << 20, codec: codec, logger: Logger(label: "test"))
        let cem = try #require(files.take(try published("cem", version: 1), now: now))
        #expect(files.write([cem], now: now).isEmpty)
        #expect(files.take(try published("cem", version: 2), now: now) == cem)
        files.writeBeforeStop([cem], now: now)
        #expect(fileVersion("cem") == 2)
    }
}
