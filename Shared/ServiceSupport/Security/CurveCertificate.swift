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
    /// which is created if needed; an existing file of either name is never replaced.
    ///
    /// - Returns: the two files, public first.
    @discardableResult
    public static func write(_ keys: CurveKeyPair, name: String, in directory: URL, now: Date = Date()) throws -> (public: URL, secret: URL) {
        guard !name.isEmpty, !name.contains("/"), !name.hasPrefix(".") else {
            throw Failure(description: "a key name is a plain file name, got '\(name)'")
        }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
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
    public static func keyPair(from file: URL) throws -> CurveKeyPair {
        let text = try String(contentsOf: file, encoding: .utf8)
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
    public static func publicKey(from file: URL) throws -> String {
        let text = try String(contentsOf: file, encoding: .utf8)
        let bare = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let key = CurveKeyPair.isWellFormed(bare) ? bare : field("public-key", in: text), CurveKeyPair.isWellFormed(key) else {
            throw Failure(description: "\(file.path) holds no CURVE public key")
        }
        return key
    }

    /// The public keys of every `*.key` file in `directory`, as `zmq.auth.load_certificates`
    /// reads an allow-list; nothing when the directory does not exist (an unreadable one throws).
    public static func publicKeys(in directory: URL) throws -> Set<String> {
        guard FileManager.default.fileExists(atPath: directory.path) else { return [] }
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        return Set(try names.filter { $0.hasSuffix(".key") }.map { try publicKey(from: directory.appendingPathComponent($0)) })
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
    /// it exists.
    private static func create(_ file: URL, mode: mode_t, contents: String) throws {
        let descriptor = open(file.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard descriptor >= 0 else {
            throw Failure(description: "cannot create \(file.path): \(String(cString: strerror(errno)))")
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        try handle.write(contentsOf: Data(contents.utf8))
        try handle.synchronize()
        _ = fchmod(descriptor, mode)  // exactly `mode`, whatever the umask
    }
}
