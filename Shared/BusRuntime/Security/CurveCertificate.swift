import Foundation
import ZeroMQ

/// CurveZMQ keys in files, in the certificate format of pyzmq's `zmq.auth` (the ZeroMQ
/// project's ZPL text): `NAME.key` holds the public key and may be shared; `NAME.key_secret`
/// holds both and is readable by its owner only. The same files work with pyzmq's
/// `zmq.auth.load_certificate`, and its `create_certificates` makes files WidgetBus reads.
public enum CurveCertificate {
    /// Why a certificate could not be written or read: one line naming the file and the reason.
    public typealias Failure = KeyFile.Failure

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
        try KeyFile.createFolder(directory)
        let publicFile = directory.appendingPathComponent("\(name).key")
        let secretFile = directory.appendingPathComponent("\(name).key_secret")
        for file in [publicFile, secretFile] where FileManager.default.fileExists(atPath: file.path) {
            throw Failure(description: "cannot create \(file.path): File exists")
        }
        let generated = "#   ****  Generated on \(ISO8601DateFormatter().string(from: now)) by widgetctl keygen  ****\n"
        try KeyFile.create(
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
            try KeyFile.create(
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
        let text = try KeyFile.contents(of: file, secret: true)
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
        let text = try KeyFile.contents(of: file, secret: false)
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
                description: "\(folder.path) is writable by its group or others (mode \(KeyFile.octal(status.st_mode))): anyone who can "
                    + "write there can add a key; chmod go-w it")
        }
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
}
