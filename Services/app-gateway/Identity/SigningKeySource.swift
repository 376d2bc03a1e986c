import Foundation
import JWTKit

/// The signature algorithms app-gateway accepts at all, each tied to one key type (RFC 8725 §3.1):
/// RS256 on RSA keys (Sign in with Apple), ES256 on P-256 keys and EdDSA on Ed25519 keys (an app
/// backend's own tokens). HMAC algorithms and `none` cannot be expressed, so no configuration can
/// allow them: a shared secret has no place where the verifying keys are public.
public enum SigningAlgorithm: String, CaseIterable, Hashable, Sendable {
    case rs256 = "RS256"
    case es256 = "ES256"
    case edDSA = "EdDSA"
}

/// A public key from a JWKS with the one algorithm it verifies, fixed when the key was read.
///
/// The algorithm comes from the key's own type (`kty`, `crv`), never from a token: a token's
/// `alg` only has to agree with it, so no token can make an RSA key verify as anything but RS256.
public struct VerificationKey: Sendable {
    public let id: String
    public let algorithm: SigningAlgorithm
    let verifier: any JWTAlgorithm

    /// Whether `signature` signs `signingInput` (the token's `header.payload` bytes) under this key.
    func verifies(_ signature: Data, signs signingInput: ArraySlice<UInt8>) -> Bool {
        (try? verifier.verify(signature, signs: signingInput)) ?? false
    }

    /// The keys of a JWKS document, each checked and bound to its algorithm.
    ///
    /// Refused, naming the key: a key without `kid` (tokens name their key, so a key without a
    /// name could never be chosen), two keys with one `kid`, private key material (this document
    /// is meant to be public), a key type other than RSA, EC P-256 or OKP Ed25519, and an `alg`
    /// member that differs from the one its type is used with. A document with no key is refused.
    public static func keys(fromJWKS json: some DataProtocol) async throws(IdentityConfigurationError) -> [VerificationKey] {
        let jwks: JWKS
        do {
            jwks = try JSONDecoder().decode(JWKS.self, from: Data(json))
        } catch {
            throw IdentityConfigurationError("not a JWKS document jwt-kit can read: \(error)")
        }
        guard !jwks.keys.isEmpty else { throw IdentityConfigurationError("the JWKS document has no key") }
        var keys: [VerificationKey] = []
        for jwk in jwks.keys {
            let key = try await VerificationKey(jwk)
            guard !keys.contains(where: { $0.id == key.id }) else {
                throw IdentityConfigurationError("the JWKS document has two keys with kid \"\(key.id)\"")
            }
            keys.append(key)
        }
        return keys
    }

    private init(_ jwk: JWK) async throws(IdentityConfigurationError) {
        guard let kid = jwk.keyIdentifier?.string, !kid.isEmpty else {
            throw IdentityConfigurationError("a key of the JWKS document has no kid")
        }
        guard jwk.privateExponent == nil, jwk.prime1 == nil, jwk.prime2 == nil else {
            throw IdentityConfigurationError("key \"\(kid)\" holds private key material; give only public keys")
        }
        let algorithm: SigningAlgorithm
        switch (jwk.keyType, jwk.curve?.rawValue) {
        case (.rsa, _): algorithm = .rs256
        case (.ecdsa, "P-256"): algorithm = .es256
        case (.octetKeyPair, "Ed25519"): algorithm = .edDSA
        default:
            throw IdentityConfigurationError(
                "key \"\(kid)\" is \(jwk.keyType.rawValue) \(jwk.curve?.rawValue ?? ""); only RSA, EC P-256 and OKP Ed25519 keys are used")
        }
        if let declared = jwk.algorithm, declared.rawValue != algorithm.rawValue {
            throw IdentityConfigurationError(
                "key \"\(kid)\" declares alg \(declared.rawValue); its type is used with \(algorithm.rawValue) only")
        }
        var pinned = jwk
        pinned.algorithm = JWK.Algorithm(rawValue: algorithm.rawValue)
        do {
            // A collection of this one key: jwt-kit builds the verifier for the pinned algorithm.
            let collection = JWTKeyCollection()
            try await collection.add(jwk: pinned)
            verifier = try await collection.getKey(for: JWKIdentifier(string: kid))
        } catch {
            throw IdentityConfigurationError("key \"\(kid)\" cannot be used: \(error)")
        }
        id = kid
        self.algorithm = algorithm
    }
}

/// Where an issuer's verification keys come from.
///
/// A lookup by `kid` may wait: a source that fetches the issuer's JWKS URL can fetch it again
/// when asked for a `kid` it does not know (keys rotate), which is why the lookup is `async`.
/// Answering nil refuses the token as `unknownKeyID`.
public protocol SigningKeySource: Sendable {
    func key(id: String) async -> VerificationKey?
}

/// A fixed set of keys, read once: a JWKS file's contents.
public struct InMemorySigningKeySource: SigningKeySource {
    private let keys: [String: VerificationKey]

    public init(jwks json: some DataProtocol) async throws(IdentityConfigurationError) {
        // keys(fromJWKS:) refuses a document with two keys of one kid.
        keys = Dictionary(uniqueKeysWithValues: try await VerificationKey.keys(fromJWKS: json).map { ($0.id, $0) })
    }

    public func key(id: String) async -> VerificationKey? { keys[id] }
}
