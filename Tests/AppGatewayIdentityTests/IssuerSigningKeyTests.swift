import AppGatewayIdentity
import Foundation
import JWTKit
import Testing

@Suite struct IssuerSigningKeyTests {
    let now = TestIssuers.now

    /// The backend issuer of TestIssuers, trusting only `key`'s JWKS under `kid`.
    private func verifier(trusting key: IssuerSigningKey, kid: String) async throws -> IdentityVerifier {
        try IdentityVerifier(issuers: [
            TrustedIssuer(
                issuer: TestIssuers.backendIssuer, alias: IssuerAlias("app"), audiences: [TestIssuers.backendAudience],
                algorithms: [.es256, .edDSA], keys: await InMemorySigningKeySource(jwks: key.jwks(kid: kid)))
        ])
    }

    private func claims(lifetime: Int = 600, notBeforeIn: Int? = nil) -> IssuedTokenClaims {
        IssuedTokenClaims(
            issuer: TestIssuers.backendIssuer, audience: TestIssuers.backendAudience, subject: "user-42", issuedAt: now,
            lifetime: lifetime, notBeforeIn: notBeforeIn)
    }

    @Test(arguments: IssuerSigningKey.Algorithm.allCases)
    func aTokenItSignsIsVerifiedAgainstItsJWKS(algorithm: IssuerSigningKey.Algorithm) async throws {
        let key = IssuerSigningKey(generating: algorithm)
        #expect(key.algorithm.rawValue == algorithm.rawValue)
        let token = try key.sign(claims(), kid: key.thumbprint)
        let identity = try await verifier(trusting: key, kid: key.thumbprint).verify(authorizationHeader: "Bearer \(token)", now: now)
        #expect(identity.userID == "app:user-42")
        #expect(identity.expiresAt == now + 600)

        let header = try JSONSerialization.jsonObject(with: try #require(Self.base64URLDecoded(token.split(separator: ".")[0]))) as? [String: String]
        #expect(header == ["alg": algorithm.rawValue, "kid": key.thumbprint, "typ": "JWT"])
    }

    @Test(arguments: IssuerSigningKey.Algorithm.allCases)
    func anotherKeyUnderTheSameKidDoesNotVerify(algorithm: IssuerSigningKey.Algorithm) async throws {
        let key = IssuerSigningKey(generating: algorithm), other = IssuerSigningKey(generating: algorithm)
        let token = try other.sign(claims(), kid: key.thumbprint)
        await #expect(throws: IdentityRefusal.badSignature) {
            try await verifier(trusting: key, kid: key.thumbprint).verify(authorizationHeader: "Bearer \(token)", now: now)
        }
    }

    /// The PEM is PKCS#8, read back by this type and by jwt-kit, and names the same key.
    @Test(arguments: IssuerSigningKey.Algorithm.allCases)
    func thePrivateKeyPEMReadsBack(algorithm: IssuerSigningKey.Algorithm) throws {
        let key = IssuerSigningKey(generating: algorithm)
        let pem = key.privateKeyPEM
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
        let read = try #require(IssuerSigningKey(pem: pem))
        #expect(read.thumbprint == key.thumbprint && read.algorithm == key.algorithm)
        switch algorithm {
        case .es256: _ = try ES256PrivateKey(pem: pem)
        case .edDSA: _ = try EdDSA.PrivateKey(pem: pem)
        }
    }

    @Test func textThatIsNoP256OrEd25519PrivateKeyIsRefused() throws {
        let key = IssuerSigningKey(generating: .es256)
        #expect(IssuerSigningKey(pem: "not a key") == nil)
        #expect(IssuerSigningKey(pem: String(decoding: try key.jwks(kid: "k"), as: UTF8.self)) == nil)
        let publicPEM = try ES256PrivateKey(pem: key.privateKeyPEM).publicKey.pemRepresentation
        #expect(IssuerSigningKey(pem: publicPEM) == nil, "a public key cannot sign")
    }

    /// RFC 8037 appendix A: its Ed25519 key's RFC 7638 thumbprint.
    @Test func theThumbprintIsRFC7638s() throws {
        let seed = try #require(Self.base64URLDecoded("nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A"))
        let pkcs8 = Data([0x30, 0x2E, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20]) + seed
        let pem = "-----BEGIN PRIVATE KEY-----\n\(pkcs8.base64EncodedString())\n-----END PRIVATE KEY-----\n"
        let key = try #require(IssuerSigningKey(pem: pem))
        #expect(key.thumbprint == "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k")
        let jwks = try #require(try JSONSerialization.jsonObject(with: key.jwks(kid: key.thumbprint)) as? [String: [[String: String]]])
        #expect(
            jwks == ["keys": [["kty": "OKP", "crv": "Ed25519", "alg": "EdDSA", "kid": key.thumbprint, "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"]]],
            "the public key alone, with no d")
    }

    @Test func theJWKSOfAP256KeyHoldsNoPrivateMember() throws {
        let jwks = try #require(
            try JSONSerialization.jsonObject(with: IssuerSigningKey(generating: .es256).jwks(kid: "k")) as? [String: [[String: String]]])
        #expect(Set(try #require(jwks["keys"]?.first).keys) == ["kty", "crv", "alg", "kid", "x", "y"])
    }

    @Test func claimsAreWholeSecondsWithNotBeforeOnlyWhenAsked() async throws {
        let at = Date(timeIntervalSince1970: 1_800_000_000.75)
        let plain = IssuedTokenClaims(issuer: "i", audience: "a", subject: "s", issuedAt: at, lifetime: 60)
        #expect(plain == IssuedTokenClaims(issuer: "i", audience: "a", subject: "s", issuedAt: at.addingTimeInterval(-0.75), lifetime: 60))
        #expect(plain.iat == 1_800_000_000 && plain.exp == 1_800_000_060 && plain.nbf == nil)
        let json = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(plain)) as? [String: Any])
        #expect(Set(json.keys) == ["iss", "aud", "sub", "iat", "exp"])

        let key = IssuerSigningKey(generating: .edDSA)
        let later = try key.sign(claims(notBeforeIn: 300), kid: "k")
        let verifier = try await verifier(trusting: key, kid: "k")
        await #expect(throws: IdentityRefusal.notYetValid) {
            try await verifier.verify(authorizationHeader: "Bearer \(later)", now: now + 300 - 61)
        }
        #expect(try await verifier.verify(authorizationHeader: "Bearer \(later)", now: now + 300).userID == "app:user-42")
    }

    private static func base64URLDecoded(_ string: some StringProtocol) -> Data? {
        var text = String(string).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        text += String(repeating: "=", count: (4 - text.count % 4) % 4)
        return Data(base64Encoded: text)
    }
}
