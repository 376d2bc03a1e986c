import Foundation
import ServiceSupport
import Synchronization
import Testing

@testable import Storage

/// AtomicFileWriter on the real file system: content, modes, leftovers, failures, and a reader
/// that never sees a torn file.
@Suite(.serialized)
struct AtomicFileWriterTests {
    let root: String

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("atomic-\(UUID().uuidString)").path
    }

    func mode(_ path: String) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    func entries(_ directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
    }

    @Test func writesAndReplacesContentCreatingFoldersWithSafeModes() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let file = root + "/alice/Widget.json"
        try AtomicFileWriter().write(Data("first".utf8), to: file)
        try AtomicFileWriter().write(Data("second".utf8), to: file)

        #expect(FileManager.default.contents(atPath: file) == Data("second".utf8))
        #expect(try mode(file) == 0o644)
        #expect(try mode(root + "/alice") == 0o755)
        #expect(try mode(root) == 0o755)
        #expect(try entries(root + "/alice") == [".Widget.json.spare", "Widget.json"], "no temporary file is left behind")
        #expect(FileManager.default.contents(atPath: root + "/alice/.Widget.json.spare") == Data("first".utf8))
    }

    func inode(_ path: String) throws -> UInt64 {
        try #require((FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? NSNumber)?.uint64Value)
    }

    @Test func rewritesSwapTheFileWithItsSpareInsteadOfMakingNewFiles() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let file = root + "/erin/Widget.json", spare = root + "/erin/.Widget.json.spare"
        let writer = AtomicFileWriter()
        try writer.write(Data("first, and longer than what follows".utf8), to: file)
        try writer.write(Data("second".utf8), to: file)
        let inodes = [try inode(file), try inode(spare)]
        for round in 3...6 {
            try writer.write(Data("round \(round)".utf8), to: file)
            #expect(try [inode(file), inode(spare)] == (round % 2 == 0 ? inodes : inodes.reversed()))
        }
        #expect(FileManager.default.contents(atPath: file) == Data("round 6".utf8), "written over, then cut to its length")
        #expect(FileManager.default.contents(atPath: spare) == Data("round 5".utf8))
    }

    @Test func aSpareWithAnotherNameIsNeverWrittenOver() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let file = root + "/gina/Widget.json", backup = root + "/gina-backup.json"
        let writer = AtomicFileWriter()
        try writer.write(Data("first".utf8), to: file)
        try writer.write(Data("second".utf8), to: file)
        try FileManager.default.linkItem(atPath: root + "/gina/.Widget.json.spare", toPath: backup)  // a hard-link backup
        try writer.write(Data("third".utf8), to: file)
        try writer.write(Data("fourth".utf8), to: file)
        #expect(FileManager.default.contents(atPath: backup) == Data("first".utf8))
        #expect(FileManager.default.contents(atPath: file) == Data("fourth".utf8))
    }

    @Test func aReaderHoldingAReplacedFileOpenStillReadsItWhole() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let file = root + "/frank/Widget.json"
        let writer = AtomicFileWriter()
        try writer.write(Data("old".utf8), to: file)
        try writer.write(Data("older than the next".utf8), to: file)
        let held = try #require(FileHandle(forReadingAtPath: file))
        defer { try? held.close() }
        // The held file is the spare after this write; the next must not write over it.
        try writer.write(Data("new".utf8), to: file)
        try writer.write(Data("newer".utf8), to: file)
        #expect(try held.readToEnd() == Data("older than the next".utf8))
        #expect(FileManager.default.contents(atPath: file) == Data("newer".utf8))
        #expect(AtomicFileWriter.removeTemporaryFiles(under: root).isEmpty, "no temporary file is left behind")
    }

    @Test func aFolderRemovedBetweenWritesIsMadeAgain() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let writer = AtomicFileWriter()
        try writer.write(Data("first".utf8), to: root + "/carol/Widget.json")
        try FileManager.default.removeItem(atPath: root + "/carol")
        try writer.write(Data("second".utf8), to: root + "/carol/Widget.json")
        #expect(FileManager.default.contents(atPath: root + "/carol/Widget.json") == Data("second".utf8))
        #expect(try mode(root + "/carol") == 0o755)
    }

    /// The umask is the process's: this suite runs its tests one at a time, and no other test
    /// looks at modes.
    @Test func aNarrowUmaskStillGivesSafeModes() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let previous = umask(0o077)
        defer { umask(previous) }
        try AtomicFileWriter().write(Data("x".utf8), to: root + "/dave/Widget.json")
        #expect(try mode(root + "/dave/Widget.json") == 0o644)
        #expect(try mode(root + "/dave") == 0o755)
    }

    @Test func anEmptyFileIsAFile() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        try AtomicFileWriter().write(Data(), to: root + "/empty.json")
        #expect(FileManager.default.contents(atPath: root + "/empty.json") == Data())
    }

    @Test func aFailedWriteLeavesTheOldFileAndNoTemporaryFile() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let file = root + "/kept.json"
        try AtomicFileWriter().write(Data("old".utf8), to: file)
        try FileManager.default.createDirectory(atPath: root + "/occupied.json", withIntermediateDirectories: false)

        #expect(throws: AtomicFileWriter.Failure.self) {
            try AtomicFileWriter().write(Data("new".utf8), to: root + "/occupied.json")  // rename over a folder fails
        }
        #expect(throws: AtomicFileWriter.Failure.self) {
            try AtomicFileWriter().write(Data("new".utf8), to: file + "/below-a-file.json")
        }
        #expect(FileManager.default.contents(atPath: file) == Data("old".utf8))
        #expect(try entries(root) == ["kept.json", "occupied.json"])
    }

    @Test func writesABatchAndReportsEachFailureByIndex() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        try AtomicFileWriter().write(Data("a file".utf8), to: root + "/blocker")
        try FileManager.default.createDirectory(atPath: root + "/user-3/occupied.json/inside", withIntermediateDirectories: true)
        var files = (0..<40).map { (data: Data("content \($0)".utf8), path: root + "/user-\($0 % 10)/file-\($0).json") }
        files.insert((Data("never".utf8), root + "/blocker/below-a-file.json"), at: 7)
        files.insert((Data("never".utf8), root + "/user-3/occupied.json"), at: 20)  // its folder's other files still land

        let failures = AtomicFileWriter().write(files)
        #expect(Set(failures.keys) == [7, 20])
        for (index, file) in files.enumerated() where ![7, 20].contains(index) {
            #expect(FileManager.default.contents(atPath: file.path) == file.data)
            #expect(try mode(file.path) == 0o644)
        }
        #expect(FileManager.default.contents(atPath: root + "/blocker") == Data("a file".utf8))
        #expect(AtomicFileWriter.removeTemporaryFiles(under: root).isEmpty, "no temporary file is left behind")
    }

    @Test func removesOnlyTheTemporaryFilesACrashLeft() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        try AtomicFileWriter().write(Data("{}".utf8), to: root + "/bob/Widget.json")
        for leftover in ["/bob/.Widget.json.k3j2h1.tmp", "/.top.json.a.tmp"] {
            #expect(FileManager.default.createFile(atPath: root + leftover, contents: Data("torn".utf8)))
        }
        #expect(FileManager.default.createFile(atPath: root + "/bob/notes.tmp", contents: nil))

        let removed = AtomicFileWriter.removeTemporaryFiles(under: root)
        #expect(removed.count == 2)
        #expect(try entries(root) == ["bob"])
        #expect(try entries(root + "/bob") == ["Widget.json", "notes.tmp"])
        #expect(AtomicFileWriter.removeTemporaryFiles(under: root + "/missing").isEmpty)
    }

    @Test func aConcurrentReaderSeesTheOldOrTheNewContentNeverATornOne() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let file = root + "/busy.json"
        let contents = ["a", "b"].map { Data(String(repeating: $0, count: 256 * 1024).utf8) }
        try AtomicFileWriter().write(contents[0], to: file)

        let stop = StopSignal()
        let reads = Mutex((total: 0, torn: 0))
        let done = DispatchSemaphore(value: 0)
        let reader = Thread {
            while !stop.isRequested {
                let read = FileManager.default.contents(atPath: file)
                reads.withLock { $0.total += 1; $0.torn += contents.contains(read ?? Data()) ? 0 : 1 }
            }
            done.signal()
        }
        reader.start()
        for round in 1...60 {
            try AtomicFileWriter().write(contents[round % 2], to: file)
        }
        stop.request()
        done.wait()

        let (total, torn) = reads.withLock { $0 }
        #expect(total > 0)
        #expect(torn == 0, "\(torn) of \(total) reads saw a missing or torn file")
    }
}
