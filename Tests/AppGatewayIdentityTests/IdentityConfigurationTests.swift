import AppGatewayIdentity
import Foundation
import JWTKit
import Testing

@Suite struct IdentityConfigurationTests {
    @Test func theLeewayIsAtMost60Seconds() async throws {
        let issuers = try await TestIssuers.shared()
        _ = try await issuers.verifier(leeway: .seconds(60))
        await #expect(throws: IdentityConfigurationError.self) { try await issuers.verifier(leeway: .milliseconds(60_001)) }
        await #expect(throws: IdentityConfigurationError.self) { try await issuers.verifier(leeway: .seconds(-1)) }
    }

    @Test func issuersAndAliasesAreEachConfiguredOnce() async throws {
        let issuers = try await TestIssuers.shared()
        let keys = try await InMemorySigningKeySource(jwks: TestIssuers.jwks(issuers.appleJWK))
        let apple = try TrustedIssuer.signInWithApple(bundleIDs: ["a.b"], keys: keys, alias: IssuerAlias("apple"))
        let sameAlias = try TrustedIssuer(
            issuer: "https://auth.example.com", alias: IssuerAlias("apple"), audiences: ["x"], algorithms: [.es256], keys: keys)
        let sameIssuer = try TrustedIssuer.signInWithApple(bundleIDs: ["a.b"], keys: keys, alias: IssuerAlias("apple2"))
        #expect(throws: IdentityConfigurationError.self) { try IdentityVerifier(issuers: [apple, sameAlias]) }
        #expect(throws: IdentityConfigurationError.self) { try IdentityVerifier(issuers: [apple, sameIssuer]) }
        #expect(throws: IdentityConfigurationError.self) { try IdentityVerifier(issuers: []) }
        #expect(throws: IdentityConfigurationError.self) {
            try TrustedIssuer(issuer: "https://x", alias: IssuerAlias("x"), audiences: [], algorithms: [.es256], keys: keys)
        }
        #expect(throws: IdentityConfigurationError.self) {
            try TrustedIssuer(issuer: "https://x", alias: IssuerAlias("x"), audiences: ["x"], algorithms: [], keys: keys)
        }
        #expect(apple.algorithms == [.rs256])
    }

    @Test(arguments: RefusedJWKS.allCases)
    func refusesAJWKSItCannotTrust(_ refused: RefusedJWKS) async throws {
        let document = try await refused.document(TestIssuers.shared())
        await #expect(throws: IdentityConfigurationError.self) { try await InMemorySigningKeySource(jwks: document) }
    }

    @Test func bindsEachKeyToTheAlgorithmOfItsType() async throws {
        let issuers = try await TestIssuers.shared()
        let keys = try await VerificationKey.keys(fromJWKS: TestIssuers.jwks(issuers.appleJWK, issuers.es256JWK, issuers.edDSAJWK))
        #expect(keys.map(\.id) == ["apple-1", "ec-1", "ed-1"])
        #expect(keys.map(\.algorithm) == [.rs256, .es256, .edDSA])
    }
}

enum RefusedJWKS: CaseIterable, CustomTestStringConvertible {
    case notJSON, noKeys, noKid, twoKeysOneKid, privateKey, p384Key, rsaKeyDeclaringPS256

    var testDescription: String { "\(self)" }

    func document(_ issuers: TestIssuers) throws -> Data {
        switch self {
        case .notJSON: return Data("keys".utf8)
        case .noKeys: return try TestIssuers.jwks()
        case .noKid:
            var key = issuers.es256JWK
            key.keyIdentifier = nil
            return try TestIssuers.jwks(key)
        case .twoKeysOneKid:
            var key = issuers.edDSAJWK
            key.keyIdentifier = "ec-1"
            return try TestIssuers.jwks(issuers.es256JWK, key)
        case .privateKey:
            var key = issuers.edDSAJWK
            key.privateExponent = issuers.edDSA.rawRepresentation.base64URL
            return try TestIssuers.jwks(key)
        case .p384Key:
            let parameters = ES384PrivateKey().publicKey.parameters!
            return try TestIssuers.jwks(.ecdsa(nil, identifier: "p384", x: parameters.x, y: parameters.y, curve: .p384))
        case .rsaKeyDeclaringPS256:
            var key = try issuers.appleJWK
            key.algorithm = .ps256
            return try TestIssuers.jwks(key)
        }
    }
}
