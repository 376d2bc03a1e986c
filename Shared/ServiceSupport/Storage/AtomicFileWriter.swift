import CFileSystem
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Replaces files so that a reader at any instant sees the old or the new content, never a torn
/// one, and a crash at any point (kill -9, power loss) leaves one of them in place.
///
/// Files are written in batches and made durable together, as a database commits a group: each
/// file's content goes to a temporary file in its folder; one `syncfs` puts all of them on the
/// device; each is renamed over its target (atomic within one file system); a second `syncfs`
/// makes the renames durable. That is two waits for the device per batch where an fsync of each
/// file and of its folder is two per file: on the project's VM disk it halves the time and the
/// CPU a file costs (docs/SNAPSHOTS.md). `syncfs` flushes whatever else is dirty on the same file
/// system too, so a busy neighbour on that file system lengthens a batch.
///
/// Files are 0644 and folders 0755 whatever the umask: never world-writable. A crash before the
/// rename leaves the temporary file behind, hidden and named `.<file>.<random>.tmp`;
/// ``removeTemporaryFiles(under:)`` clears such leftovers when the single writer starts.
public struct AtomicFileWriter: Sendable {
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
        var folders: Set<String> = []
        var staged: [(index: Int, folder: String, temporary: String)] = []
        for (index, file) in files.enumerated() {
            let folder = Self.parent(of: file.path)
            let temporary = (folder as NSString).appendingPathComponent(
                ".\((file.path as NSString).lastPathComponent).\(String(UInt64.random(in: .min ... .max), radix: 36)).tmp")
            do {
                if !folders.contains(folder) {
                    try createDirectory(folder)
                    folders.insert(folder)
                }
                try Self.writeNewFile(file.data, at: temporary)
                staged.append((index, folder, temporary))
            } catch {
                unlink(temporary)
                failures[index] = error
            }
        }

        // Every temporary file's content is on the device before any of them replaces a file.
        let unsynced = Self.syncFileSystems(holding: staged.map(\.folder))
        var renamed: [(index: Int, folder: String)] = []
        for (index, folder, temporary) in staged {
            do {
                if let failure = unsynced[folder] { throw failure }
                try Self.check(rename(temporary, files[index].path), "rename", temporary)
                renamed.append((index, folder))
            } catch {
                unlink(temporary)
                failures[index] = error
            }
        }

        // Every rename is on the device before the batch reports success.
        let unrenamed = Self.syncFileSystems(holding: renamed.map(\.folder))
        for (index, folder) in renamed {
            if let failure = unrenamed[folder] { failures[index] = failure }
        }
        return failures
    }

    /// Flushes the file systems holding `folders`, one `syncfs` each; returns the failure of each
    /// folder whose file system could not be flushed.
    private static func syncFileSystems(holding folders: [String]) -> [String: any Error] {
        var failures: [String: any Error] = [:]
        var flushed: Set<dev_t> = []
        var failedDevices: [dev_t: any Error] = [:]
        for folder in Set(folders) {
            var status = stat()
            guard stat(folder, &status) == 0 else {
                failures[folder] = Failure("stat", folder)
                continue
            }
            if flushed.insert(status.st_dev).inserted {
                do {
                    try sync(directory: folder, wholeFileSystem: true)
                } catch {
                    failedDevices[status.st_dev] = error
                }
            }
            failures[folder] = failedDevices[status.st_dev]
        }
        return failures
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

    /// Creates the file at `path` with `data`, not yet durable: the batch's barrier is.
    private static func writeNewFile(_ data: Data, at path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, fileMode)
        guard descriptor >= 0 else { throw Failure("create", path) }
        defer { close(descriptor) }
        try check(fchmod(descriptor, fileMode), "chmod", path)  // the umask may have narrowed it
        try data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < buffer.count {
                let written = writeBytes(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    guard errno == EINTR else { throw Failure("write", path) }
                    continue
                }
                offset += written
            }
        }
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

/// POSIX `write(2)`, out of reach of ``AtomicFileWriter/write(_:to:)``'s name inside the type.
private func writeBytes(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}
