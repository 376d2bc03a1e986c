import Crypto
import CryptoExtras
import Foundation
import JWTKit

/// The private key of an issuer whose tokens app-gateway trusts: what an app backend (or, in
/// development, `widgetctl token`) signs bearer tokens with, and the public JWKS that
/// IdentityVerifier is configured with for it.
///
/// ES256 (P-256) or EdDSA (Ed25519) only, the algorithms an app backend's tokens may use; RS256
/// is Apple's, whose private keys nobody here holds. The private key is kept as PKCS#8 PEM
/// (`-----BEGIN PRIVATE KEY-----`, RFC 5958 / RFC 8410) for both, which swift-crypto, jwt-kit
/// (`ES256PrivateKey(pem:)`, `EdDSA.PrivateKey(pem:)`) and `openssl pkey` all read.
///
/// Signing is synchronous, with swift-crypto: jwt-kit signs only through its key collection
/// actor, which a synchronous command line cannot wait for. The tokens are JWS compact
/// serialisations that jwt-kit verifies (IdentityVerifier is the check).
public struct IssuerSigningKey: Sendable {
    private enum Key: Sendable {
        case p256(P256.Signing.PrivateKey)
        case ed25519(Curve25519.Signing.PrivateKey)
    }

    /// The algorithms an issuer's key can be made for: an app backend's, not Apple's RS256.
    public enum Algorithm: String, CaseIterable, Sendable {
        case es256 = "ES256"
        case edDSA = "EdDSA"
    }

    private let key: Key

    /// A new random key for `algorithm`.
    public init(generating algorithm: Algorithm) {
        switch algorithm {
        case .es256: key = .p256(P256.Signing.PrivateKey())
        case .edDSA: key = .ed25519(Curve25519.Signing.PrivateKey())
        }
    }

    /// The key of a PKCS#8 PEM private key (``privateKeyPEM``); nil when `pem` is neither a
    /// P-256 nor an Ed25519 private key.
    public init?(pem: String) {
        if let p256 = try? P256.Signing.PrivateKey(pemRepresentation: pem) {
            key = .p256(p256)
        } else if let ed25519 = try? Curve25519.Signing.PrivateKey(pemRepresentation: pem) {
            key = .ed25519(ed25519)
        } else {
            return nil
        }
    }

    /// The one algorithm this key signs with, fixed by its type as VerificationKey fixes it.
    public var algorithm: SigningAlgorithm {
        switch key {
        case .p256: .es256
        case .ed25519: .edDSA
        }
    }

    /// The private key as PKCS#8 PEM. Secret: write it only to a file its owner alone may read.
    public var privateKeyPEM: String {
        switch key {
        case .p256(let key): key.pemRepresentation
        case .ed25519(let key): key.pemRepresentation
        }
    }

    /// The public key's RFC 7638 JWK thumbprint: base64url of the SHA-256 of its required
    /// members in lexicographic order. A `kid` derived from the key itself names it uniquely
    /// without a registry of names, and anyone can recompute it from the JWKS.
    public var thumbprint: String {
        let members: String
        switch key {
        case .p256(let key):
            let (x, y) = Self.coordinates(key.publicKey)
            members = #"{"crv":"P-256","kty":"EC","x":"\#(x)","y":"\#(y)"}"#
        case .ed25519(let key):
            members = #"{"crv":"Ed25519","kty":"OKP","x":"\#(key.publicKey.rawRepresentation.base64URLEncoded)"}"#
        }
        return Data(SHA256.hash(data: Data(members.utf8))).base64URLEncoded
    }

    /// The public key as a JWK named `kid`, with its `alg` stated (IdentityVerifier accepts an
    /// `alg` member only when it is the one the key type is used with, which this is).
    public func publicJWK(kid: String) -> JWK {
        switch key {
        case .p256(let key):
            let (x, y) = Self.coordinates(key.publicKey)
            return .ecdsa(.es256, identifier: JWKIdentifier(string: kid), x: x, y: y, curve: .p256)
        case .ed25519(let key):
            return .octetKeyPair(
                .eddsa, identifier: JWKIdentifier(string: kid), x: key.publicKey.rawRepresentation.base64URLEncoded, y: nil,
                curve: .ed25519)
        }
    }

    /// The JWKS document of the public key alone, named `kid`: what an issuer publishes and
    /// InMemorySigningKeySource reads. It holds no private key material.
    public func jwks(kid: String) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(JWKS(keys: [publicJWK(kid: kid)]))
    }

    /// A signed JWT (JWS compact serialisation) of `claims`, its header naming `kid` and this
    /// key's algorithm, as IdentityVerifier requires of every token.
    public func sign(_ claims: IssuedTokenClaims, kid: String) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let header = try encoder.encode(["alg": algorithm.rawValue, "kid": kid, "typ": "JWT"])
        let signingInput = header.base64URLEncoded + "." + (try encoder.encode(claims)).base64URLEncoded
        let signature: Data
        switch key {
        // JWS ES256 is the raw r ‖ s pair (RFC 7518 §3.4), not DER.
        case .p256(let key): signature = try key.signature(for: Data(signingInput.utf8)).rawRepresentation
        case .ed25519(let key): signature = try key.signature(for: Data(signingInput.utf8))
        }
        return signingInput + "." + signature.base64URLEncoded
    }

    /// The x and y coordinates of a P-256 public key, base64url: its uncompressed point
    /// (`04 ‖ x ‖ y`) split in two.
    private static func coordinates(_ key: P256.Signing.PublicKey) -> (x: String, y: String) {
        let point = key.x963Representation.dropFirst()
        return (Data(point.prefix(32)).base64URLEncoded, Data(point.suffix(32)).base64URLEncoded)
    }
}

/// The claims of a token an IssuerSigningKey signs: exactly those IdentityVerifier reads, plus
/// `iat`. Dates are whole seconds since 1970 (JWT NumericDate).
public struct IssuedTokenClaims: Codable, Equatable, Sendable {
    public var iss: String
    public var sub: String
    public var aud: String
    public var iat: Int
    public var exp: Int
    public var nbf: Int?

    /// Claims issued at `now` (rounded down to a second), expiring `lifetime` seconds later and,
    /// if `notBeforeIn` is given, valid from that many seconds after `now`.
    public init(issuer: String, audience: String, subject: String, issuedAt now: Date, lifetime: Int, notBeforeIn: Int? = nil) {
        let issuedAt = Int(now.timeIntervalSince1970.rounded(.down))
        iss = issuer
        sub = subject
        aud = audience
        iat = issuedAt
        exp = issuedAt + lifetime
        nbf = notBeforeIn.map { issuedAt + $0 }
    }
}

extension Data {
    /// Base64url without padding (RFC 7515 §2).
    fileprivate var base64URLEncoded: String {
        base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
