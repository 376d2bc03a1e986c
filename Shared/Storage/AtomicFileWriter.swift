import CFileSystem
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Replaces files so that a reader at any instant sees the old or the new content, never a torn
/// one, and a crash at any point (kill -9, power loss) leaves one of them in place.
///
/// Files are written in batches and made durable together, as a database commits a group: each
/// file's content goes to a hidden file beside it; one `syncfs` puts all of them on the device;
/// each is then swapped with its target or renamed over it (atomic within one file system); a
/// second `syncfs` makes that durable. That is two waits for the device per batch where an fsync
/// of each file and of its folder is two per file: on the project's VM disk it halves the time and
/// the CPU a file costs (docs/SNAPSHOTS.md). `syncfs` flushes whatever else is dirty on the same
/// file system too, so a busy neighbour on that file system lengthens a batch.
///
/// **Spares: a file replaced is kept, to be written over next time.** The hidden file a write
/// goes to is the target's *spare*, `.<file>.spare`; the swap (`renameat2` with
/// `RENAME_EXCHANGE`) makes the new content the target and the old content the spare. So a file
/// rewritten again and again reuses two inodes instead of creating one and deleting one per
/// write: on ext4 without a journal every new inode is looked for past the recently deleted
/// ones, which made creating the file most of a write's cost (docs/BENCHMARKS.md). A spare is
/// written over only under a write lease, which Linux grants only when no one else holds it open
/// and which makes anyone who opens it meanwhile wait until it is whole (``stage(_:for:in:)``):
/// a reader that opened the target before the last swap still reads that content whole. When
/// the spare may not be written over, or the file system cannot swap, the write goes to a new
/// temporary file `.<file>.<tag>.tmp` renamed over the target. A file's first write makes its
/// spare and renames it to the file. The spares double the disk a set of files takes, and the
/// writer must be its files' only one (two would write into each other's spares).
///
/// Files are 0644 and folders 0755 whatever the umask: never world-writable. A crash before the
/// swap or rename leaves the hidden file behind: a spare is simply written over next time;
/// ``removeTemporaryFiles(under:)`` clears temporary files when the single writer starts.
///
/// A writer remembers the folders it has made or found, and their file systems, so a file costs
/// eight system calls beside the batch's barriers (open, `fstat`, lease, write, truncate, close,
/// `lstat` and swap; create, write, close, rename for a new file): no `mkdir` per file, no random
/// draw per temporary name (a random tag per writer and a counter; `O_EXCL` refuses a clash), and
/// no `fchmod` when the umask leaves 0644 as it is. A folder removed behind its back is made again
/// on the next write into it. A writer is used by one thread at a time.
public final class AtomicFileWriter {
    public static let fileMode: mode_t = 0o644
    public static let directoryMode: mode_t = 0o755

    /// A failed system call, with the path it was about.
    public struct Failure: Error, CustomStringConvertible {
        public let operation: String
        public let path: String
        public let code: Int32

        init(_ operation: String, _ path: String, code: Int32 = errno) {
            self.operation = operation
            self.path = path
            self.code = code
        }

        public var description: String { "\(operation) \(path): \(String(cString: strerror(code)))" }
    }

    /// The folders made or found so far, with the device of their file system.
    private var folders: [String: dev_t] = [:]
    /// Whether the process's umask takes a bit of ``fileMode`` away, so that each new file needs
    /// its mode set again.
    private let umaskNarrowsFileMode = AtomicFileWriter.processUmask().map { $0 & AtomicFileWriter.fileMode != 0 } ?? true
    /// Temporary names: this writer's random tag, then a counter.
    private let temporaryTag = String(UInt64.random(in: .min ... .max), radix: 36)
    private var temporaryCount: UInt64 = 0
    /// Whether files are written to spares and swapped in: until a file system refuses a swap.
    private var canSwap = true
    /// Whether the last batch's barriers succeeded, so that every spare's old content is no
    /// longer needed on the device.
    private var lastBarriersSucceeded = true
    /// How long the last batch waited for its two barriers: the part of a batch's time that does
    /// not grow with its files.
    public private(set) var lastBarrierTime = Duration.zero

    public init() {}

    /// Makes `data` the content of the file at `path`, creating missing folders.
    public func write(_ data: Data, to path: String) throws {
        if let failure = write([(data, path)])[0] { throw failure }
    }

    /// Makes each `data` the content of its `path`, creating missing folders, as one durable
    /// batch, and returns the error of each file that failed, by index; the others are in place.
    /// A failure of one file leaves the others alone; a failed barrier fails every file it
    /// covered (those already renamed are in place but not known to be durable). The paths must
    /// differ.
    public func write(_ files: [(data: Data, path: String)]) -> [Int: any Error] {
        var failures: [Int: any Error] = [:]
        var staged: [(index: Int, folder: String, staged: StagedFile)] = []
        for (index, file) in files.enumerated() {
            let folder = Self.parent(of: file.path)
            do {
                staged.append((index, folder, try stage(file.data, for: file.path, in: folder)))
            } catch {
                failures[index] = error
            }
        }
        // Every staged file's content is on the device before any of them replaces a file.
        var barrierStarted = ContinuousClock.now
        let unsynced = syncFileSystems(holding: staged.map(\.folder))
        lastBarrierTime = ContinuousClock.now - barrierStarted
        var replaced: [(index: Int, folder: String)] = []
        for (index, folder, file) in staged {
            do {
                if let failure = unsynced[folder] { throw failure }
                try replace(files[index].path, with: file)
                replaced.append((index, folder))
            } catch {
                unlink(file.path)
                failures[index] = error
            }
        }
        // Every swap and rename is on the device before the batch reports success.
        barrierStarted = ContinuousClock.now
        let unreplaced = syncFileSystems(holding: replaced.map(\.folder))
        lastBarrierTime += ContinuousClock.now - barrierStarted
        for (index, folder) in replaced {
            if let failure = unreplaced[folder] { failures[index] = failure }
        }
        lastBarriersSucceeded = unsynced.isEmpty && unreplaced.isEmpty
        return failures
    }

    /// Where a file's new content waits for the batch's first barrier.
    private enum StagedFile {
        /// The target's spare, swapped with the target (or renamed to it, if the target is gone).
        case spare(String)
        /// A new file renamed over the target.
        case temporary(String)

        var path: String {
            switch self {
            case .spare(let path), .temporary(let path): path
            }
        }
    }

    /// Writes `data` to `target`'s spare (made if there is none) when it may be written over, or
    /// else to a new temporary file; not yet durable: the batch's barrier is.
    ///
    /// A spare is written over only while this writer holds a write lease on it, which Linux
    /// grants only when no one else has it open; whoever opens it meanwhile waits until the
    /// content is whole (closing it gives the lease up). It must be a plain file with no other
    /// name — a hard link (a backup, a repair after a crash) would change with it, so such a
    /// spare is dropped — and the last batch's barriers must have succeeded: after a failed
    /// one, the spare may be the file whose swap is not yet on the device.
    private func stage(_ data: Data, for target: String, in folder: String) throws -> StagedFile {
        let name = (target as NSString).lastPathComponent
        let spare = (folder as NSString).appendingPathComponent(".\(name).spare")
        if canSwap, lastBarriersSucceeded {
            // Non-blocking: a FIFO put at the spare's name must not stop the writer.
            let descriptor = open(spare, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
            if descriptor >= 0 {
                defer { close(descriptor) }
                var status = stat()
                if fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG {
                    if status.st_nlink == 1, widgetbus_lease_if_open_only_here(descriptor) == 1 {
                        try Self.writeAll(data, to: descriptor, path: spare)
                        try Self.check(ftruncate(descriptor, off_t(data.count)), "truncate", spare)
                        return .spare(spare)
                    }
                    if status.st_nlink > 1 { unlink(spare) }
                }
            } else if errno == ENOENT {
                try writeNewFile(data, at: spare, in: folder)
                return .spare(spare)
            }
        }
        temporaryCount += 1
        let temporary = (folder as NSString).appendingPathComponent(".\(name).\(temporaryTag)\(String(temporaryCount, radix: 36)).tmp")
        do {
            try writeNewFile(data, at: temporary, in: folder)
        } catch {
            unlink(temporary)
            throw error
        }
        return .temporary(temporary)
    }

    /// Puts the staged content in place at `target`: swaps a spare with the target, or renames
    /// it (or a temporary file) over the target when there is no target to swap with.
    private func replace(_ target: String, with file: StagedFile) throws {
        switch file {
        case .spare(let spare):
            // Only a regular file is swapped: anything else at the target is left to the rename
            // (which refuses a folder), so it never becomes the spare. No target yet (or deleted
            // by hand): the spare becomes it.
            var status = stat()
            if lstat(target, &status) == 0, status.st_mode & S_IFMT == S_IFREG {
                if widgetbus_exchange(spare, target) == 0 { return }
                switch errno {
                case ENOENT: break  // the target went since the lstat
                case EINVAL, ENOSYS: canSwap = false  // this file system cannot swap: new files from now on
                default: throw Failure("swap", spare)
                }
            }
            try Self.check(rename(spare, target), "rename", spare)
        case .temporary(let temporary):
            try Self.check(rename(temporary, target), "rename", temporary)
        }
    }

    /// Flushes the file systems holding `folders`, one `syncfs` each; returns the failure of each
    /// folder whose file system could not be flushed.
    private func syncFileSystems(holding folders: [String]) -> [String: any Error] {
        var failures: [String: any Error] = [:]
        var flushed: Set<dev_t> = []
        var failedDevices: [dev_t: any Error] = [:]
        for folder in Set(folders) {
            let device: dev_t
            do {
                device = try self.device(of: folder)
            } catch {
                failures[folder] = error
                continue
            }
            if flushed.insert(device).inserted {
                do {
                    try Self.sync(directory: folder, wholeFileSystem: true)
                } catch {
                    failedDevices[device] = error
                }
            }
            failures[folder] = failedDevices[device]
        }
        return failures
    }

    /// The device of `folder`'s file system, made (with its parents) on first use.
    private func device(of folder: String) throws -> dev_t {
        if let device = folders[folder] { return device }
        try createDirectory(folder)
        var status = stat()
        guard stat(folder, &status) == 0 else { throw Failure("stat", folder) }
        folders[folder] = status.st_dev
        return status.st_dev
    }

    /// Creates `path` and its missing parents, fsyncing each parent so that the new entry
    /// survives a crash too.
    public func createDirectory(_ path: String) throws {
        if mkdir(path, Self.directoryMode) == 0 {
            try Self.check(chmod(path, Self.directoryMode), "chmod", path)  // the umask may have narrowed it
            try Self.sync(directory: Self.parent(of: path))
            return
        }
        switch errno {
        case EEXIST:
            return
        case ENOENT where Self.parent(of: path) != path:
            try createDirectory(Self.parent(of: path))
            try createDirectory(path)
        default:
            throw Failure("mkdir", path)
        }
    }

    /// Whether `name` is one of the temporary files ``write(_:to:)`` creates.
    public static func isTemporaryFile(_ name: String) -> Bool {
        name.hasPrefix(".") && name.hasSuffix(".tmp")
    }

    /// Deletes temporary files a crash left anywhere under `root`; returns their paths. Only for
    /// the single writer of `root`, before it writes: another writer's file in progress would go.
    @discardableResult
    public static func removeTemporaryFiles(under root: String) -> [String] {
        guard let entries = FileManager.default.enumerator(atPath: root) else { return [] }
        var removed: [String] = []
        for case let entry as String in entries where isTemporaryFile((entry as NSString).lastPathComponent) {
            let path = (root as NSString).appendingPathComponent(entry)
            if unlink(path) == 0 { removed.append(path) }
        }
        return removed
    }

    /// Creates the file at `path` in `folder` with `data`, not yet durable: the batch's barrier
    /// is. A known folder found missing is made again, once.
    private func writeNewFile(_ data: Data, at path: String, in folder: String) throws {
        _ = try device(of: folder)
        var descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, Self.fileMode)
        if descriptor < 0, errno == ENOENT {
            folders[folder] = nil
            _ = try device(of: folder)
            descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, Self.fileMode)
        }
        guard descriptor >= 0 else { throw Failure("create", path) }
        defer { close(descriptor) }
        if umaskNarrowsFileMode { try Self.check(fchmod(descriptor, Self.fileMode), "chmod", path) }
        try Self.writeAll(data, to: descriptor, path: path)
    }

    /// Writes all of `data` at the start of the open file `descriptor` (of `path`, for errors).
    private static func writeAll(_ data: Data, to descriptor: Int32, path: String) throws {
        try data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < buffer.count {
                let written = pwrite(descriptor, buffer.baseAddress! + offset, buffer.count - offset, off_t(offset))
                if written < 0 {
                    guard errno == EINTR else { throw Failure("write", path) }
                    continue
                }
                offset += written
            }
        }
    }

    /// The process's umask, from `/proc/self/status` (reading it with `umask(2)` would change it
    /// for a moment under every thread); nil where that is not available.
    private static func processUmask() -> mode_t? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Umask:") })
        else { return nil }
        return mode_t(line.dropFirst("Umask:".count).trimmingCharacters(in: .whitespaces), radix: 8)
    }

    /// Flushes `directory` to the device (fsync), or with `wholeFileSystem` everything dirty on
    /// its file system (syncfs).
    private static func sync(directory: String, wholeFileSystem: Bool = false) throws {
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw Failure("open", directory) }
        defer { close(descriptor) }
        if wholeFileSystem {
            try check(widgetbus_syncfs(descriptor), "syncfs", directory)
        } else {
            try check(fsync(descriptor), "fsync", directory)
        }
    }

    private static func parent(of path: String) -> String {
        let parent = (path as NSString).deletingLastPathComponent
        return parent.isEmpty ? "." : parent
    }

    private static func check(_ result: Int32, _ operation: String, _ path: String) throws {
        if result != 0 { throw Failure(operation, path) }
    }
}
