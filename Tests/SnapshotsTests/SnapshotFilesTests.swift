import Foundation
import Logging
import Testing
import WidgetBusProtocol
import WidgetDomain

@testable import BusRuntime
@testable import Snapshots

/// The files' side of a batch written on the disk's thread: from the moment it leaves the wait
/// (``SnapshotFiles/write(_:now:)``) to its outcome (``SnapshotFiles/takeDiskReports(now:)``), and the
/// disk check beside it, on a real folder.
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

    /// Takes the outcome of the batch handed to the disk, once it is on the device.
    func finishBatch(of files: SnapshotFiles) {
        files.disk.waitForJobs()
        #expect(files.takeDiskReports(now: now) == false)
    }

    /// Whether the disk check finds a file that does not show what it was believed to.
    func checkFindsADifference(_ files: SnapshotFiles) -> Bool {
        files.checkDisk()
        files.disk.waitForJobs()
        return files.takeDiskReports(now: now)
    }

    /// The bus thread goes on while a batch is on the disk's thread: a newer timeline of a file
    /// being written waits for the next batch (never mixed into the one on its way), the same
    /// timeline again does not, and the disk check does not mistake a file being rewritten for
    /// one changed by hand.
    @Test func aFileBeingWrittenTakesNewerTimelinesForTheNextBatchAndIsNotCheckedMeanwhile() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let files = try SnapshotFiles(root: root, waitingBudget: 1 << 20, codec: codec, logger: Logger(label: "test"))
        let ann = try #require(files.take(try published("ann", version: 1), now: now))
        let bob = try #require(files.take(try published("bob", version: 1), now: now))
        #expect(files.write([ann, bob], now: now).isEmpty)
        finishBatch(of: files)
        #expect([fileVersion("ann"), fileVersion("bob")] == [1, 1])

        #expect(files.take(try published("ann", version: 2), now: now) == ann)
        #expect(files.write([ann], now: now).isEmpty)
        #expect(files.isWriting)
        // The same timeline again, while its file is being written: nothing more to write.
        #expect(files.take(try published("ann", version: 2), now: now) == nil)
        // A check behind the batch reads bob's file, not ann's: that one is on disk already, its
        // outcome not taken yet, which is not a file changed by hand.
        files.checkDisk()
        files.disk.waitForJobs()
        #expect(fileVersion("ann") == 2)
        // A newer timeline while the batch's outcome is on its way waits for the next batch.
        #expect(files.take(try published("ann", version: 3), now: now) == ann)
        #expect(files.takeDiskReports(now: now) == false)
        #expect(!files.isWriting)
        #expect(fileVersion("ann") == 2)
        #expect(files.write([ann], now: now).isEmpty)
        finishBatch(of: files)
        #expect(fileVersion("ann") == 3)
        #expect(!checkFindsADifference(files))

        // A file changed by hand is still caught once nothing is on its way.
        try FileManager.default.removeItem(atPath: "\(root)/ann/\(WidgetKind.tensionCheck.rawValue).json")
        #expect(checkFindsADifference(files))
    }

    /// A disk check of more files than a slice reads them in several jobs, the next handed over
    /// once the one before has reported, so a batch handed over meanwhile is written between them;
    /// a file changed by hand is found in whichever slice it is.
    @Test func aDiskCheckReadsTheFilesASliceAtATimeWithBatchesBetween() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let files = try SnapshotFiles(root: root, waitingBudget: 64 << 20, codec: codec, logger: Logger(label: "test"))
        let count = 2 * SnapshotFiles.checkSlice + 2
        let paths = try (0..<count).map { try #require(files.take(try published("user-\($0)", version: 1), now: now)) }
        #expect(files.write(paths, now: now).isEmpty)
        finishBatch(of: files)

        #expect(files.checkDisk(), "a check starts")
        let late = try #require(files.take(try published("late", version: 1), now: now))
        #expect(files.write([late], now: now).isEmpty)
        files.disk.waitForJobs()
        #expect(files.takeDiskReports(now: now) == false, "the first slice, then the batch behind it")
        #expect(!files.isWriting && fileVersion("late") == 1)
        #expect(!files.checkDisk(), "the check's second slice is on its way")
        files.disk.waitForJobs()
        #expect(files.takeDiskReports(now: now) == false)
        #expect(!files.checkDisk(), "its third slice is on its way")
        files.disk.waitForJobs()
        #expect(files.takeDiskReports(now: now) == false)
        #expect(files.checkDisk(), "\(count) files were read in three slices: the check is over, and a new one starts")
        for _ in 0..<3 {
            files.disk.waitForJobs()
            #expect(files.takeDiskReports(now: now) == false)
        }

        try FileManager.default.removeItem(atPath: "\(root)/user-7/\(WidgetKind.tensionCheck.rawValue).json")
        var found = false
        #expect(files.checkDisk())
        for _ in 0..<3 where !found {
            files.disk.waitForJobs()
            found = files.takeDiskReports(now: now)
        }
        #expect(found, "the deleted file is found in its slice")
        #expect(files.checkDisk(), "a difference ends the check: the re-sync reads every file again")
    }

    /// A failed file of a batch waits again, with its timeline, and is tried after the retry delay.
    @Test func aFileThatFailsWaitsAgainForItsRetry() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let files = try SnapshotFiles(root: root, waitingBudget: 1 << 20, codec: codec, logger: Logger(label: "test"))
        // A plain file where the user's folder should be: the write cannot create it.
        try Data("in the way".utf8).write(to: URL(fileURLWithPath: "\(root)/bob"))
        let bob = try #require(files.take(try published("bob", version: 1), now: now))
        #expect(files.write([bob], now: now).isEmpty)
        finishBatch(of: files)
        #expect(files.nextRetry == now.addingTimeInterval(SnapshotFiles.retryDelay))

        try FileManager.default.removeItem(atPath: "\(root)/bob")
        #expect(files.retriesDue(now: now.addingTimeInterval(SnapshotFiles.retryDelay)) == [bob])
        #expect(files.write([bob], now: now).isEmpty)
        finishBatch(of: files)
        #expect(fileVersion("bob") == 1)
    }

    /// On stop, the batch on its way is finished first: a file that failed in it is written with
    /// the rest, and one that changed meanwhile ends showing the newer timeline, as the writer
    /// believes it does.
    @Test func theWritesBeforeStopTakeTheOutcomeOfTheBatchOnItsWayFirst() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let files = try SnapshotFiles(root: root, waitingBudget: 1 << 20, codec: codec, logger: Logger(label: "test"))
        try Data("in the way".utf8).write(to: URL(fileURLWithPath: "\(root)/cem"))
        let cem = try #require(files.take(try published("cem", version: 1), now: now))
        let dan = try #require(files.take(try published("dan", version: 1), now: now))
        #expect(files.write([cem, dan], now: now).isEmpty)
        files.disk.waitForJobs()  // cem failed, dan written; neither outcome taken
        try FileManager.default.removeItem(atPath: "\(root)/cem")
        #expect(files.take(try published("dan", version: 2), now: now) == dan)

        files.writeBeforeStop(now: now) { files.retriesDue(now: .distantFuture) + [dan] }
        #expect([fileVersion("cem"), fileVersion("dan")] == [1, 2])
        #expect(!checkFindsADifference(files))
    }
}
