import Crypto
import Foundation

/// The JSON Web Token an APNs provider authenticates every request with: ES256-signed, naming the
/// signing key (`kid`), the team (`iss`) and when it was made (`iat`). APNs refuses a token older
/// than an hour (`ExpiredProviderToken`) and one replaced more often than every 20 minutes
/// (`TooManyProviderTokenUpdates`), so one token is kept and replaced between the two: when
/// it is 50 minutes old, or when APNs calls it expired and it is at least 20 minutes old. A token
/// an earlier run issued is taken up again (``init(credentials:reusing:at:)``): a gateway
/// restarting in a loop would otherwise replace it at every start, more often than APNs allows.
///
/// The signature is swift-crypto's P-256 ECDSA over SHA-256, whose raw form (r ‖ s) is the JWS
/// encoding.
public struct APNsProviderToken: Sendable {
    /// Where the key comes from: the `.p8` file Apple's developer site issues (a PKCS#8 PEM
    /// P-256 key), its key id and the team id.
    public struct Credentials: Sendable {
        public var key: P256.Signing.PrivateKey
        public var keyID: String
        public var teamID: String

        public init(key: P256.Signing.PrivateKey, keyID: String, teamID: String) {
            self.key = key
            self.keyID = keyID
            self.teamID = teamID
        }

        /// Reads the key from the PEM text of a `.p8` file.
        public init(p8 pem: String, keyID: String, teamID: String) throws {
            self.init(key: try P256.Signing.PrivateKey(pemRepresentation: pem), keyID: keyID, teamID: teamID)
        }
    }

    /// A token is replaced once this old, inside APNs' hour.
    public static let refreshAge: TimeInterval = 50 * 60
    /// A token is never replaced younger than this, whatever APNs says.
    public static let minimumAge: TimeInterval = 20 * 60

    public let credentials: Credentials
    /// The token in use, and when it was made.
    public private(set) var current: (token: String, issuedAt: Date)?

    public init(credentials: Credentials) {
        self.credentials = credentials
    }

    /// Starts with `stored`, the token an earlier run issued last, when it is still good at `now`:
    /// signed with this key (its `kid` this key id, its signature verified with the key's public
    /// half) for this team, and younger than ``refreshAge``. Otherwise — no token, another key or
    /// team, too old, or dated after `now` — the first ``token(at:)`` signs a new one.
    public init(credentials: Credentials, reusing stored: String?, at now: Date) {
        self.init(credentials: credentials)
        if let stored, let issuedAt = Self.issueDate(of: stored, signedWith: credentials),
            (0..<Self.refreshAge).contains(now.timeIntervalSince(issuedAt))
        {
            current = (stored, issuedAt)
        }
    }

    /// The token to send at `now`: the one in use, or a new one when it is ``refreshAge`` old.
    public mutating func token(at now: Date) throws -> String {
        if let current, now.timeIntervalSince(current.issuedAt) < Self.refreshAge { return current.token }
        return try issue(at: now)
    }

    /// APNs answered `ExpiredProviderToken` at `now`: the token is replaced, unless it is younger
    /// than ``minimumAge`` (a clock far off APNs' own; replacing it would only be refused).
    /// Returns whether it was replaced.
    public mutating func expired(at now: Date) throws -> Bool {
        if let current, now.timeIntervalSince(current.issuedAt) < Self.minimumAge { return false }
        _ = try issue(at: now)
        return true
    }

    private mutating func issue(at now: Date) throws -> String {
        let issuedAt = Int(now.timeIntervalSince1970)
        let encoder = JSONEncoder()
        let header = Self.base64URL(try encoder.encode(Header(kid: credentials.keyID)))
        let claims = Self.base64URL(try encoder.encode(Claims(iss: credentials.teamID, iat: issuedAt)))
        let signingInput = "\(header).\(claims)"
        let signature = try credentials.key.signature(for: Data(signingInput.utf8))
        let token = "\(signingInput).\(Self.base64URL(signature.rawRepresentation))"
        current = (token, Date(timeIntervalSince1970: TimeInterval(issuedAt)))
        return token
    }

    /// When `token` was issued (its `iat`), if `credentials` made it; nil for anything else.
    static func issueDate(of token: String, signedWith credentials: Credentials) -> Date? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        let decoder = JSONDecoder()
        guard parts.count == 3,
            let header = Self.base64URLDecoded(parts[0]).flatMap({ try? decoder.decode(Header.self, from: $0) }),
            let claims = Self.base64URLDecoded(parts[1]).flatMap({ try? decoder.decode(Claims.self, from: $0) }),
            let signature = Self.base64URLDecoded(parts[2]).flatMap({ try? P256.Signing.ECDSASignature(rawRepresentation: $0) }),
            header.alg == "ES256", header.kid == credentials.keyID, claims.iss == credentials.teamID,
            credentials.key.publicKey.isValidSignature(signature, for: Data("\(parts[0]).\(parts[1])".utf8))
        else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(claims.iat))
    }

    /// The bytes of base64 with the URL alphabet and no padding; nil when `text` is not that.
    static func base64URLDecoded(_ text: Substring) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }

    /// Base64 with the URL alphabet and no padding (RFC 7515 §2).
    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The JOSE header: the algorithm and the key that signed.
    private struct Header: Codable {
        var alg = "ES256"
        var kid: String
    }

    /// The claims APNs reads: the team and the issue date, in whole seconds.
    private struct Claims: Codable {
        var iss: String
        var iat: Int
    }
}
