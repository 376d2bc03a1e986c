import Foundation
import ZeroMQ

/// CurveZMQ keys in files, in the certificate format of pyzmq's `zmq.auth` (the ZeroMQ
/// project's ZPL text): `NAME.key` holds the public key and may be shared; `NAME.key_secret`
/// holds both and is readable by its owner only. The same files work with pyzmq's
/// `zmq.auth.load_certificate`, and its `create_certificates` makes files WidgetBus reads.
public enum CurveCertificate {
    /// Why a certificate could not be written or read.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Writes `keys` as `NAME.key` (mode 0644) and `NAME.key_secret` (mode 0600) in `directory`,
    /// which is created if needed (mode 0755, whatever the umask: a folder others could write
    /// to is one they could drop a key into); an existing file of either name is never replaced.
    ///
    /// - Returns: the two files, public first.
    @discardableResult
    public static func write(_ keys: CurveKeyPair, name: String, in directory: URL, now: Date = Date()) throws(Failure) -> (public: URL, secret: URL) {
        guard !name.isEmpty, !name.contains("/"), !name.hasPrefix(".") else {
            throw Failure(description: "a key name is a plain file name, got '\(name)'")
        }
        try createFolder(directory)
        let publicFile = directory.appendingPathComponent("\(name).key")
        let secretFile = directory.appendingPathComponent("\(name).key_secret")
        for file in [publicFile, secretFile] where FileManager.default.fileExists(atPath: file.path) {
            throw Failure(description: "cannot create \(file.path): File exists")
        }
        let generated = "#   ****  Generated on \(ISO8601DateFormatter().string(from: now)) by widgetctl keygen  ****\n"
        try create(
            secretFile, mode: 0o600,
            contents: generated + """
                #   ZeroMQ CURVE **Secret** Certificate
                #   DO NOT PROVIDE THIS FILE TO OTHER USERS nor change its permissions.

                metadata
                curve
                    public-key = "\(keys.publicKey)"
                    secret-key = "\(keys.secretKey)"

                """)
        do {
            try create(
                publicFile, mode: 0o644,
                contents: generated + """
                    #   ZeroMQ CURVE Public Certificate
                    #   Exchange securely, or use a secure mechanism to verify the contents
                    #   of this file after exchange.

                    metadata
                    curve
                        public-key = "\(keys.publicKey)"

                    """)
        } catch {
            try? FileManager.default.removeItem(at: secretFile)  // no half-written pair left behind
            throw error
        }
        return (publicFile, secretFile)
    }

    /// The key pair of a secret certificate (`NAME.key_secret`), or of a file holding the
    /// Z85 secret key alone (as a secret manager may hand it over).
    ///
    /// As ssh does with a private key, a file that its group or others may read or write is
    /// refused: whoever can read a secret key can be that service.
    public static func keyPair(from file: URL) throws(Failure) -> CurveKeyPair {
        let text = try contents(of: file, secret: true)
        let bare = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let secret = CurveKeyPair.isWellFormed(bare) ? bare : field("secret-key", in: text)
        guard let secret, let keys = try? CurveKeyPair(secretKey: secret) else {
            throw Failure(description: "\(file.path) holds no CURVE secret key")
        }
        if let stated = field("public-key", in: text), stated != keys.publicKey {
            throw Failure(description: "\(file.path): its public key does not belong to its secret key")
        }
        return keys
    }

    /// The public key of a certificate (`NAME.key` or `NAME.key_secret`), or of a file holding
    /// the Z85 public key alone.
    public static func publicKey(from file: URL) throws(Failure) -> String {
        let text = try contents(of: file, secret: false)
        let bare = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let key = CurveKeyPair.isWellFormed(bare) ? bare : field("public-key", in: text), CurveKeyPair.isWellFormed(key) else {
            throw Failure(description: "\(file.path) holds no CURVE public key")
        }
        return key
    }

    /// The public keys of every `*.key` file in `directory`, as `zmq.auth.load_certificates`
    /// reads an allow-list. The folder must exist (it may be empty) and be writable by its owner
    /// alone (``checkKeyFolder(_:)``).
    public static func publicKeys(in directory: URL) throws(Failure) -> Set<String> {
        try checkKeyFolder(directory)
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            throw Failure(description: "cannot list the keys in \(directory.path)")
        }
        var keys: Set<String> = []
        for name in names where name.hasSuffix(".key") { keys.insert(try publicKey(from: directory.appendingPathComponent(name))) }
        return keys
    }

    /// Refuses a folder of keys that is missing, not a folder, or writable by its group or
    /// others: whoever can add a file to an allow-list folder can let a key in.
    public static func checkKeyFolder(_ folder: URL) throws(Failure) {
        var status = stat()
        guard stat(folder.path, &status) == 0 else {
            throw Failure(description: "\(folder.path): \(String(cString: strerror(errno)))")
        }
        guard status.st_mode & S_IFMT == S_IFDIR else { throw Failure(description: "\(folder.path) is not a folder") }
        guard status.st_mode & 0o022 == 0 else {
            throw Failure(
                description: "\(folder.path) is writable by its group or others (mode \(octal(status.st_mode))): anyone who can "
                    + "write there can add a key; chmod go-w it")
        }
    }

    /// The text of a key file, or one line naming the file and what is wrong with it. A secret
    /// key's file must be its owner's alone (no permission for group or others).
    private static func contents(of file: URL, secret: Bool) throws(Failure) -> String {
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
    /// one is left as it is); one line naming the path when it cannot. Every key-writing command
    /// creates its folder this way (widgetctl keygen and token issuer).
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
    private static func octal(_ mode: mode_t) -> String {
        "0" + String(mode & 0o7777, radix: 8)
    }

    /// The value of `name = "…"` in a certificate's text.
    private static func field(_ name: String, in text: String) -> String? {
        for line in text.split(whereSeparator: \.isNewline) {
            let line = line.trimmingCharacters(in: .whitespaces)
            guard !line.hasPrefix("#"), line.hasPrefix(name), let equals = line.firstIndex(of: "=") else { continue }
            return line[line.index(after: equals)...].trimmingCharacters(in: CharacterSet(charactersIn: " \t'\""))
        }
        return nil
    }

    /// Creates `file` with `mode` from the start (never briefly readable by others) and fails if
    /// it exists. Every key file is written this way (widgetctl keygen and token issuer).
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
