import Crypto
import Foundation

/// The JSON Web Token an APNs provider authenticates every request with: ES256-signed, naming the
/// signing key (`kid`), the team (`iss`) and when it was made (`iat`). APNs refuses a token older
/// than an hour (`ExpiredProviderToken`) and one replaced more often than every 20 minutes
/// (`TooManyProviderTokenUpdates`), so one token is kept and replaced between the two: when
/// it is 50 minutes old, or when APNs calls it expired and it is at least 20 minutes old.
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

    /// Base64 with the URL alphabet and no padding (RFC 7515 §2).
    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The JOSE header: the algorithm and the key that signed.
    private struct Header: Encodable {
        var alg = "ES256"
        var kid: String
    }

    /// The claims APNs reads: the team and the issue date, in whole seconds.
    private struct Claims: Encodable {
        var iss: String
        var iat: Int
    }
}
