import AppGatewayIdentity
import CryptoExtras
import Foundation
import JWTKit
import Testing
import WidgetBusProtocol

@Suite struct IdentityVerifierTests {
    let now = TestIssuers.now

    @Test func acceptsASignInWithAppleToken() async throws {
        let issuers = try await TestIssuers.shared()
        let identity = try await issuers.verifier().verify(
            authorizationHeader: issuers.bearer(.apple, kid: "apple-1"), now: now)
        #expect(identity.issuer == "https://appleid.apple.com")
        #expect(identity.subject == "001234.0123456789abcdef0123456789abcdef.0123")
        #expect(identity.userID == "apple:001234.0123456789abcdef0123456789abcdef.0123")
        #expect(identity.expiresAt == now + 600)
    }

    @Test(arguments: ["ec-1", "ed-1"])
    func acceptsABackendToken(kid: String) async throws {
        let issuers = try await TestIssuers.shared()
        let identity = try await issuers.verifier().verify(authorizationHeader: issuers.bearer(.backend, kid: kid), now: now)
        #expect(identity.userID == "app:user-42")
        #expect(identity.issuer == TestIssuers.backendIssuer)
    }

    @Test func theSchemeIsCaseInsensitiveAndMaySpaceOut() async throws {
        let issuers = try await TestIssuers.shared()
        let token = try await issuers.bearer(.backend, kid: "ec-1").dropFirst("Bearer ".count)
        let verifier = try await issuers.verifier()
        for header in ["bearer \(token)", "BEARER   \(token)"] {
            #expect(try await verifier.verify(authorizationHeader: header, now: now).userID == "app:user-42")
        }
    }

    /// The same (issuer, subject) is the same bus user whichever key signed and whenever.
    @Test func oneSubjectOfOneIssuerIsOneUser() async throws {
        let issuers = try await TestIssuers.shared()
        let verifier = try await issuers.verifier()
        var later = TestClaims.backend
        later.exp = TestClaims.seconds(now + 7_200)
        let first = try await verifier.verify(authorizationHeader: issuers.bearer(.backend, kid: "ec-1"), now: now)
        let second = try await verifier.verify(authorizationHeader: issuers.bearer(later, kid: "ed-1"), now: now + 3_600)
        #expect(first.userID == second.userID)
    }

    @Test func theLeewayCoversUpTo60SecondsOfSkew() async throws {
        let issuers = try await TestIssuers.shared()
        let verifier = try await issuers.verifier()
        let header = try await issuers.bearer(.apple, kid: "apple-1")  // exp now + 600, nbf now - 10
        _ = try await verifier.verify(authorizationHeader: header, now: now + 600 + 59)
        await #expect(throws: IdentityRefusal.expired) {
            try await verifier.verify(authorizationHeader: header, now: now + 600 + 61)
        }
        _ = try await verifier.verify(authorizationHeader: header, now: now - 10 - 59)
        await #expect(throws: IdentityRefusal.notYetValid) {
            try await verifier.verify(authorizationHeader: header, now: now - 10 - 61)
        }
        let strict = try await issuers.verifier(leeway: .zero)
        _ = try await strict.verify(authorizationHeader: header, now: now + 600)
        await #expect(throws: IdentityRefusal.expired) {
            try await strict.verify(authorizationHeader: header, now: now + 601)
        }
    }

    @Test(arguments: RefusedToken.allCases)
    func refuses(_ refused: RefusedToken) async throws {
        let issuers = try await TestIssuers.shared()
        let header = try await refused.authorizationHeader(issuers)
        await #expect(throws: refused.reason) {
            try await issuers.verifier().verify(authorizationHeader: header, now: now)
        }
    }

    @Test func everyRefusalHasATestAndAHeaderSafeDescription() {
        #expect(Set(RefusedToken.allCases.map(\.reason)) == Set(IdentityRefusal.allCases))
        for reason in IdentityRefusal.allCases {
            #expect(reason.description.utf8.allSatisfy { (0x20..<0x7F).contains($0) && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") })
        }
        #expect(Set(IdentityRefusal.allCases.map(\.description)).count == IdentityRefusal.allCases.count)
        #expect(IdentityRefusal.missingAuthorization.bearerError == nil)
        #expect(IdentityRefusal.malformedAuthorization.bearerError == "invalid_request")
        #expect(IdentityRefusal.badSignature.bearerError == "invalid_token")
    }
}

/// One way a token fails, and the refusal it must get.
enum RefusedToken: CaseIterable, CustomTestStringConvertible {
    case noHeader, basicScheme, bearerWithoutToken, twoParts, notBase64URL, claimOfTheWrongType, critHeader
    case algNone, algNoneCapitalised, hmacWithTheRSAPublicKey, unknownIssuer, algorithmNotPinnedForApple
    case es384ForBackend, noKid, unknownKid, ecKidWithEdDSA, bitFlippedSignature, signedByAnotherKey
    case wrongAudience, noAudience, expired, notYetValid, noExpiry, noSubject, emptySubject

    var testDescription: String { "\(self)" }

    var reason: IdentityRefusal {
        switch self {
        case .noHeader: .missingAuthorization
        case .basicScheme, .bearerWithoutToken: .malformedAuthorization
        case .twoParts, .notBase64URL, .claimOfTheWrongType, .critHeader: .malformedToken
        case .algNone, .algNoneCapitalised: .unsignedToken
        case .hmacWithTheRSAPublicKey: .hmacAlgorithm
        case .unknownIssuer: .unknownIssuer
        case .algorithmNotPinnedForApple, .es384ForBackend: .algorithmNotAllowed
        case .noKid: .missingKeyID
        case .unknownKid: .unknownKeyID
        case .ecKidWithEdDSA: .keyAlgorithmMismatch
        case .bitFlippedSignature, .signedByAnotherKey: .badSignature
        case .wrongAudience, .noAudience: .wrongAudience
        case .expired: .expired
        case .notYetValid: .notYetValid
        case .noExpiry: .missingExpiration
        case .noSubject, .emptySubject: .missingSubject
        }
    }

    func authorizationHeader(_ issuers: TestIssuers) async throws -> String? {
        let now = TestIssuers.now
        var claims = TestClaims.apple
        let appleClaimsJSON = """
            {"iss":"https://appleid.apple.com","sub":"001234.abc","aud":"\(TestIssuers.bundleID)","exp":\(Int(now.timeIntervalSince1970) + 600)}
            """
        switch self {
        case .noHeader: return nil
        case .basicScheme: return "Basic dXNlcjpwYXNz"
        case .bearerWithoutToken: return "Bearer "
        case .twoParts: return "Bearer eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxIn0"
        case .notBase64URL:
            return try await issuers.bearer(claims, kid: "apple-1").replacingOccurrences(of: "-", with: "+") + "+/="
        case .claimOfTheWrongType:
            return handcrafted(
                header: #"{"alg":"RS256","kid":"apple-1"}"#,
                claims: #"{"iss":"https://appleid.apple.com","sub":"1","aud":"x","exp":"tomorrow"}"#, signature: "AAAA")
        case .critHeader:
            return try await issuers.bearer(claims, kid: "apple-1", header: ["crit": ["exp"], "exp": "x"])
        case .algNone:
            return handcrafted(header: #"{"alg":"none","kid":"apple-1"}"#, claims: appleClaimsJSON)
        case .algNoneCapitalised:
            return handcrafted(header: #"{"alg":"NoNe"}"#, claims: appleClaimsJSON)
        case .hmacWithTheRSAPublicKey:
            // The classic confusion: HS256 keyed with the bytes of the RSA public key anyone can fetch.
            let forger = JWTKeyCollection()
            await forger.add(hmac: HMACKey(from: issuers.rsa.publicKey.pemRepresentation), digestAlgorithm: .sha256, kid: "apple-1")
            return "Bearer " + (try await forger.sign(claims, kid: "apple-1"))
        case .unknownIssuer:
            claims.iss = "https://appleid.apple.com.evil.example"
        case .algorithmNotPinnedForApple:
            // A token claiming Apple but signed with the backend's EC key: Apple is pinned to RS256.
            return try await issuers.bearer(claims, kid: "ec-1")
        case .es384ForBackend:
            let es384 = JWTKeyCollection()
            await es384.add(ecdsa: ES384PrivateKey(), kid: "ec-1")
            return "Bearer " + (try await es384.sign(TestClaims.backend, kid: "ec-1"))
        case .noKid:
            let anonymous = JWTKeyCollection()
            await anonymous.add(rsa: issuers.rsa, digestAlgorithm: .sha256)
            return "Bearer " + (try await anonymous.sign(claims))
        case .unknownKid:
            // Apple's real key, under a kid its JWKS does not list.
            let unlisted = JWTKeyCollection()
            await unlisted.add(rsa: issuers.rsa, digestAlgorithm: .sha256, kid: "apple-2")
            return "Bearer " + (try await unlisted.sign(claims, kid: "apple-2"))
        case .ecKidWithEdDSA:
            // Signed with the backend's Ed25519 key but naming its P-256 key, which EdDSA cannot use.
            let misnamed = JWTKeyCollection()
            await misnamed.add(eddsa: issuers.edDSA, kid: "ec-1")
            return "Bearer " + (try await misnamed.sign(TestClaims.backend, kid: "ec-1"))
        case .bitFlippedSignature:
            // A character well inside the signature: the last one may carry only padding bits.
            var header = Array(try await issuers.bearer(claims, kid: "apple-1"))
            header[header.count - 20] = header[header.count - 20] == "A" ? "B" : "A"
            return String(header)
        case .signedByAnotherKey:
            let other = JWTKeyCollection()
            await other.add(
                rsa: try JWTKit.Insecure.RSA.PrivateKey(backing: _RSA.Signing.PrivateKey(keySize: .bits2048)), digestAlgorithm: .sha256, kid: "apple-1")
            return "Bearer " + (try await other.sign(claims, kid: "apple-1"))
        case .wrongAudience: claims.aud = "com.example.someone-else"
        case .noAudience: claims.aud = nil
        case .expired: claims.exp = TestClaims.seconds(now - 61)
        case .notYetValid: claims.nbf = TestClaims.seconds(now + 61)
        case .noExpiry: claims.exp = nil
        case .noSubject: claims.sub = nil
        case .emptySubject: claims.sub = ""
        }
        return try await issuers.bearer(claims, kid: "apple-1")
    }
}
