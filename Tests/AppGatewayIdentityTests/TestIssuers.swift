import AppGatewayIdentity
import Crypto
import CryptoExtras
import Foundation
import JWTKit

/// Keys made for the test run, the JWKS documents of their public halves, and tokens signed with
/// them by jwt-kit: a Sign in with Apple stand-in (RS256) and an app backend (ES256 and EdDSA).
struct TestIssuers: Sendable {
    static let bundleID = "com.example.widgetbus"
    static let backendIssuer = "https://auth.example.com"
    static let backendAudience = "widgetbus-app"
    /// A whole second, as `exp` and `nbf` are written in whole seconds.
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    let rsa: JWTKit.Insecure.RSA.PrivateKey
    let es256 = ES256PrivateKey()
    let edDSA: EdDSA.PrivateKey
    /// Signs with every test key under its kid: `apple-1` (RS256), `ec-1` (ES256), `ed-1` (EdDSA).
    let signers = JWTKeyCollection()

    /// One set for the whole run: an RSA key takes long to make.
    static func shared() async throws -> TestIssuers { try await made.value }

    private static let made = Task { try await make() }

    private static func make() async throws -> TestIssuers {
        let issuers = try TestIssuers(
            rsa: JWTKit.Insecure.RSA.PrivateKey(backing: _RSA.Signing.PrivateKey(keySize: .bits2048)),
            edDSA: EdDSA.PrivateKey(curve: .ed25519))
        await issuers.signers.add(rsa: issuers.rsa, digestAlgorithm: .sha256, kid: "apple-1")
        await issuers.signers.add(ecdsa: issuers.es256, kid: "ec-1")
        await issuers.signers.add(eddsa: issuers.edDSA, kid: "ed-1")
        return issuers
    }

    private init(rsa: JWTKit.Insecure.RSA.PrivateKey, edDSA: EdDSA.PrivateKey) {
        self.rsa = rsa
        self.edDSA = edDSA
    }

    var appleJWK: JWK {
        get throws {
            let primitives = try rsa.publicKey.getKeyPrimitives()
            return .rsa(
                .rs256, identifier: "apple-1", modulus: primitives.modulus.base64URL,
                exponent: primitives.publicExponent.base64URL)
        }
    }

    var es256JWK: JWK {
        let parameters = es256.publicKey.parameters!
        return .ecdsa(nil, identifier: "ec-1", x: parameters.x, y: parameters.y, curve: .p256)
    }

    var edDSAJWK: JWK {
        .octetKeyPair(nil, identifier: "ed-1", x: edDSA.publicKey.rawRepresentation.base64URL, y: nil, curve: .ed25519)
    }

    static func jwks(_ keys: JWK...) throws -> Data { try JSONEncoder().encode(JWKS(keys: keys)) }

    /// Apple (RS256, audience the bundle id, alias `apple`) and the backend (ES256 and EdDSA,
    /// alias `app`), with the default leeway of 60 s unless told.
    func verifier(leeway: Duration = IdentityVerifier.maxLeeway) async throws -> IdentityVerifier {
        try IdentityVerifier(
            issuers: [
                .signInWithApple(
                    bundleIDs: [Self.bundleID], keys: await InMemorySigningKeySource(jwks: Self.jwks(appleJWK)),
                    alias: IssuerAlias("apple")),
                TrustedIssuer(
                    issuer: Self.backendIssuer, alias: IssuerAlias("app"), audiences: [Self.backendAudience],
                    algorithms: [.es256, .edDSA], keys: await InMemorySigningKeySource(jwks: Self.jwks(es256JWK, edDSAJWK))),
            ],
            leeway: leeway)
    }

    /// `Bearer <token>` of `claims`, signed with the key of `kid` (its own algorithm) unless
    /// `header` says otherwise.
    func bearer(_ claims: TestClaims, kid: String, header: JWTHeader = JWTHeader()) async throws -> String {
        "Bearer " + (try await signers.sign(claims, kid: JWKIdentifier(string: kid), header: header))
    }
}

/// Claims as a token carries them, written as plain JSON strings and numbers (not through the
/// claim types the verifier reads with); each may be left out.
struct TestClaims: JWTPayload {
    var iss: String?
    var sub: String?
    var aud: AudienceClaim?  // one audience is written as a string, as Apple writes it
    var exp: Int?
    var nbf: Int?

    func verify(using algorithm: some JWTAlgorithm) {}

    /// `date` as a JWT NumericDate.
    static func seconds(_ date: Date) -> Int { Int(date.timeIntervalSince1970) }

    /// A valid Sign in with Apple token's claims at TestIssuers.now.
    static let apple = TestClaims(
        iss: TrustedIssuer.appleIssuer, sub: "001234.0123456789abcdef0123456789abcdef.0123",
        aud: AudienceClaim(value: TestIssuers.bundleID), exp: seconds(TestIssuers.now + 600),
        nbf: seconds(TestIssuers.now - 10))

    /// A valid backend token's claims at TestIssuers.now.
    static let backend = TestClaims(
        iss: TestIssuers.backendIssuer, sub: "user-42",
        aud: AudienceClaim(value: [TestIssuers.backendAudience, "other-service"]), exp: seconds(TestIssuers.now + 600))
}

extension DataProtocol {
    var base64URL: String {
        Data(self).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

/// A token written by hand: base64url of the header and claims JSON exactly as given, and the
/// signature (empty unless given).
func handcrafted(header: String, claims: String, signature: String = "") -> String {
    "Bearer \(Data(header.utf8).base64URL).\(Data(claims.utf8).base64URL).\(signature)"
}
