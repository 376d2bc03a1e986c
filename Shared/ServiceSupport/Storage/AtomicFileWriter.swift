import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Replaces files so that a reader at any instant sees the old or the new content, never a torn
/// one, and a crash at any point (kill -9, power loss) leaves one of them in place: the content
/// goes to a temporary file in the same folder, is fsynced, renamed over the target (atomic
/// within one file system), and the folder is fsynced so that the rename itself is durable.
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
        if let failure = write([(data, path)], inFolder: Self.parent(of: path), indices: [0])[0] { throw failure }
    }

    /// Writes each file as ``write(_:to:)`` does, up to `concurrency` folders at a time on threads
    /// of their own, and returns the error of each file that failed, by index. Each fsync waits
    /// for the device, and the file system commits concurrent ones together: several in flight
    /// write many times more files per second than one after the other. The files of one folder
    /// are written by one thread and share one fsync of the folder, after all their renames (a
    /// user's widget kinds often change together). The paths must differ.
    public func write(_ files: [(data: Data, path: String)], concurrency: Int) -> [Int: any Error] {
        var folders: [String: [Int]] = [:]
        var order: [String] = []
        for (index, file) in files.enumerated() {
            let folder = Self.parent(of: file.path)
            if folders[folder] == nil { order.append(folder) }
            folders[folder, default: []].append(index)
        }
        let groups = order.map { ($0, folders[$0]!) }
        let batch = ConcurrentBatch()
        let done = DispatchGroup()
        for _ in 0..<min(max(1, concurrency), groups.count) {
            done.enter()
            Thread {
                while case let next = batch.next.add(1, ordering: .relaxed).oldValue, next < groups.count {
                    let failures = write(files, inFolder: groups[next].0, indices: groups[next].1)
                    if !failures.isEmpty { batch.errors.withLock { $0.merge(failures) { $1 } } }
                }
                done.leave()
            }.start()
        }
        done.wait()
        return batch.errors.withLock { $0 }
    }

    /// Writes the files at `indices`, all in `folder`: each to a temporary file, fsynced and
    /// renamed over its target; then one fsync of the folder makes every rename durable. Returns
    /// the failures by index (a failed folder fsync fails every file renamed before it).
    private func write(_ files: [(data: Data, path: String)], inFolder folder: String, indices: [Int]) -> [Int: any Error] {
        var failures: [Int: any Error] = [:]
        do {
            try createDirectory(folder)
        } catch {
            for index in indices { failures[index] = error }
            return failures
        }
        var renamed: [Int] = []
        for index in indices {
            let path = files[index].path
            let temporary = (folder as NSString).appendingPathComponent(
                ".\((path as NSString).lastPathComponent).\(String(UInt64.random(in: .min ... .max), radix: 36)).tmp")
            do {
                try Self.writeDurably(files[index].data, toNewFile: temporary)
                try Self.check(rename(temporary, path), "rename", temporary)
                renamed.append(index)
            } catch {
                unlink(temporary)
                failures[index] = error
            }
        }
        if !renamed.isEmpty {
            do {
                try Self.sync(directory: folder)
            } catch {
                for index in renamed { failures[index] = error }
            }
        }
        return failures
    }

    /// The work of one concurrent ``write(_:concurrency:)``, shared by its threads.
    private final class ConcurrentBatch: Sendable {
        let next = Atomic(0)
        let errors = Mutex<[Int: any Error]>([:])
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

    private static func writeDurably(_ data: Data, toNewFile path: String) throws {
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
        try check(fsync(descriptor), "fsync", path)
    }

    private static func sync(directory: String) throws {
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw Failure("open", directory) }
        defer { close(descriptor) }
        try check(fsync(descriptor), "fsync", directory)
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
