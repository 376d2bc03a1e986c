import Foundation

/// Files that hold keys, handled as ssh handles them: created with their final mode from the
/// start and never replaced, in folders no group or other may write (whatever the umask), and a
/// secret read only from a file its owner alone may use. Every failure is one line naming the
/// path and the reason. CURVE certificates (``CurveCertificate``) and development issuer keys
/// (`widgetctl token issuer`) are written and read through it.
public enum KeyFile {
    /// Why a key file could not be written or read.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String

        public init(description: String) {
            self.description = description
        }
    }

    /// The text of a key file, or one line naming the file and what is wrong with it. A secret
    /// key's file must be its owner's alone (no permission for group or others).
    static func contents(of file: URL, secret: Bool) throws(Failure) -> String {
        let descriptor = open(file.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw Failure(description: "cannot read \(file.path): \(String(cString: strerror(errno)))") }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw Failure(description: "cannot read \(file.path): \(String(cString: strerror(errno)))") }
        guard status.st_mode & S_IFMT == S_IFREG else { throw Failure(description: "cannot read \(file.path): it is not a file") }
        if secret, status.st_mode & 0o077 != 0 {
            throw Failure(
                description: "\(file.path) holds a secret key but its group or others may use it (mode \(octal(status.st_mode))): "
                    + "chmod 600 it, as ssh requires of a private key")
        }
        guard let data = try? handle.readToEnd() ?? Data(), let text = String(data: data, encoding: .utf8) else {
            throw Failure(description: "cannot read \(file.path) as UTF-8 text")
        }
        return text
    }

    /// Creates `folder` and its missing parents with mode 0755 whatever the umask (an existing
    /// one is left as it is); one line naming the path when it cannot.
    public static func createFolder(_ folder: URL) throws(Failure) {
        var missing: [String] = []
        var path = folder.standardizedFileURL.path
        var status = stat()
        while stat(path, &status) != 0 {
            missing.append(path)
            path = (path as NSString).deletingLastPathComponent
        }
        guard status.st_mode & S_IFMT == S_IFDIR else { throw Failure(description: "cannot create \(folder.path): \(path) is not a folder") }
        for path in missing.reversed() {
            guard mkdir(path, 0o755) == 0 || errno == EEXIST, chmod(path, 0o755) == 0 else {
                throw Failure(description: "cannot create \(path): \(String(cString: strerror(errno)))")
            }
        }
    }

    /// A file mode's permission bits as `ls` and `chmod` write them (`0644`).
    static func octal(_ mode: mode_t) -> String {
        "0" + String(mode & 0o7777, radix: 8)
    }

    /// Creates `file` with `mode` from the start (never briefly readable by others) and fails if
    /// it exists.
    public static func create(_ file: URL, mode: mode_t, contents: String) throws(Failure) {
        let descriptor = open(file.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard descriptor >= 0 else {
            throw Failure(description: "cannot create \(file.path): \(String(cString: strerror(errno)))")
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        do {
            try handle.write(contentsOf: Data(contents.utf8))
            try handle.synchronize()
        } catch {
            throw Failure(description: "cannot write \(file.path): \(String(cString: strerror(errno)))")
        }
        _ = fchmod(descriptor, mode)  // exactly `mode`, whatever the umask
    }
}
