import CZeroMQ
import Foundation

/// A CurveZMQ long-term key pair, each key Z85-encoded (40 characters), as libzmq makes, reads
/// and prints them. The secret key never appears in ``description``, so a pair can be logged or
/// interpolated by mistake without leaking it.
public struct CurveKeyPair: Sendable, Equatable, CustomStringConvertible, CustomReflectable {
    public let publicKey: String
    public let secretKey: String

    /// The length of a Z85-encoded key.
    public static let keyLength = 40

    /// Whether this libzmq was built with CURVE (`zmq_has("curve")`).
    public static var isAvailable: Bool { zmq_has("curve") == 1 }

    /// A new random pair (`zmq_curve_keypair`).
    public static func generate() throws(ZMQError) -> CurveKeyPair {
        var publicKey = [CChar](repeating: 0, count: keyLength + 1)
        var secretKey = [CChar](repeating: 0, count: keyLength + 1)
        guard zmq_curve_keypair(&publicKey, &secretKey) == 0 else { throw ZMQError.last("zmq_curve_keypair") }
        return CurveKeyPair(publicKey: text(publicKey), secretKey: text(secretKey))
    }

    /// The pair of `secretKey`, its public key derived from it (`zmq_curve_public`).
    ///
    /// - Throws: ``ZMQError`` when `secretKey` is not a Z85-encoded key.
    public init(secretKey: String) throws(ZMQError) {
        guard Self.isWellFormed(secretKey) else { throw ZMQError(errno: EINVAL, operation: "zmq_curve_public: not a Z85 key") }
        var publicKey = [CChar](repeating: 0, count: Self.keyLength + 1)
        guard zmq_curve_public(&publicKey, secretKey) == 0 else { throw ZMQError.last("zmq_curve_public") }
        self.init(publicKey: Self.text(publicKey), secretKey: secretKey)
    }

    private init(publicKey: String, secretKey: String) {
        self.publicKey = publicKey
        self.secretKey = secretKey
    }

    /// The Z85 text of a 32-byte binary key, as a ZAP request carries a client's key.
    public static func z85(_ key: Data) -> String? {
        guard key.count == 32 else { return nil }
        var text = [CChar](repeating: 0, count: keyLength + 1)
        let encoded = key.withUnsafeBytes { bytes in
            zmq_z85_encode(&text, bytes.bindMemory(to: UInt8.self).baseAddress, 32)
        }
        return encoded == nil ? nil : Self.text(text)
    }

    /// The 32 bytes of a Z85-encoded key, as CURVE carries it; nil when `key` is not one.
    public static func binary(_ key: String) -> Data? {
        guard isWellFormed(key) else { return nil }
        var bytes = [UInt8](repeating: 0, count: 32)
        return zmq_z85_decode(&bytes, key) == nil ? nil : Data(bytes)
    }

    /// The text of a NUL-terminated buffer libzmq filled.
    private static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether `key` is a Z85-encoded 32-byte key: 40 characters of the Z85 alphabet.
    public static func isWellFormed(_ key: String) -> Bool {
        key.utf8.count == keyLength && key.utf8.allSatisfy { z85Alphabet.contains($0) }
    }

    public var description: String { "CurveKeyPair(public: \(publicKey), secret: <redacted>)" }
    public var customMirror: Mirror { Mirror(self, children: ["publicKey": publicKey]) }

    private static let z85Alphabet = Set(
        "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#".utf8)
}

extension ZMQSocket {
    /// Makes this socket a CURVE server with `keys` (`ZMQ_CURVE_SERVER`, `ZMQ_CURVE_SECRETKEY`):
    /// every peer must handshake with CURVE and is then asked about at the ZAP handler of
    /// `domain` (`ZMQ_ZAP_DOMAIN`). Set before `bind`.
    public func makeCurveServer(keys: CurveKeyPair, domain: String) throws(ZMQError) {
        try setOption(ZMQ_CURVE_SERVER, Int32(1), name: "ZMQ_CURVE_SERVER")
        try setOption(ZMQ_CURVE_SECRETKEY, Data(keys.secretKey.utf8), name: "ZMQ_CURVE_SECRETKEY")
        try setOption(ZMQ_ZAP_DOMAIN, Data(domain.utf8), name: "ZMQ_ZAP_DOMAIN")
    }

    /// Makes this socket a CURVE client of the server whose public key is `serverKey`, proving
    /// itself with `keys` (`ZMQ_CURVE_SERVERKEY`, `ZMQ_CURVE_PUBLICKEY`, `ZMQ_CURVE_SECRETKEY`).
    /// Set before `connect`.
    public func makeCurveClient(keys: CurveKeyPair, serverKey: String) throws(ZMQError) {
        try setOption(ZMQ_CURVE_SERVERKEY, Data(serverKey.utf8), name: "ZMQ_CURVE_SERVERKEY")
        try setOption(ZMQ_CURVE_PUBLICKEY, Data(keys.publicKey.utf8), name: "ZMQ_CURVE_PUBLICKEY")
        try setOption(ZMQ_CURVE_SECRETKEY, Data(keys.secretKey.utf8), name: "ZMQ_CURVE_SECRETKEY")
    }
}
