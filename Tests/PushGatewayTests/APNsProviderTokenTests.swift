import Crypto
import Foundation
import PushGateway
import Testing

/// The provider token APNs authenticates a request with: its fields, its signature checked with
/// the public half of the key, and when it is replaced.
@Suite("APNs provider token")
struct APNsProviderTokenTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    let key = P256.Signing.PrivateKey()

    /// A token source reading the key as a `.p8` file holds it (PKCS#8 PEM).
    final class Source {
        var value: APNsProviderToken
        init(_ key: P256.Signing.PrivateKey) throws {
            value = APNsProviderToken(credentials: try .init(p8: key.pemRepresentation, keyID: "ABC123DEFG", teamID: "TEAM456789"))
        }
        func token(at seconds: TimeInterval) throws -> String { try value.token(at: APNsProviderTokenTests.start.addingTimeInterval(seconds)) }
        func expired(at seconds: TimeInterval) throws -> Bool { try value.expired(at: APNsProviderTokenTests.start.addingTimeInterval(seconds)) }
    }

    static func decoded(_ part: Substring) throws -> Data {
        var text = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        text += String(repeating: "=", count: (4 - text.count % 4) % 4)
        return try #require(Data(base64Encoded: text))
    }

    @Test func aTokenNamesTheKeyTheTeamAndTheDateAndIsSignedWithTheKey() throws {
        let source = try Source(key)
        let token = try source.token(at: 0.7)
        let parts = token.split(separator: ".")
        #expect(parts.count == 3 && !token.contains("="))
        let header = try JSONSerialization.jsonObject(with: try Self.decoded(parts[0])) as? [String: String]
        #expect(header == ["alg": "ES256", "kid": "ABC123DEFG"])
        let claims = try #require(try JSONSerialization.jsonObject(with: try Self.decoded(parts[1])) as? [String: Any])
        #expect(claims["iss"] as? String == "TEAM456789" && (claims["iat"] as? Int) == 1_800_000_000)
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: try Self.decoded(parts[2]))
        #expect(key.publicKey.isValidSignature(signature, for: Data("\(parts[0]).\(parts[1])".utf8)))
        #expect(!P256.Signing.PrivateKey().publicKey.isValidSignature(signature, for: Data("\(parts[0]).\(parts[1])".utf8)))
    }

    @Test func aTokenIsKeptFiftyMinutesThenReplaced() throws {
        let source = try Source(key)
        let first = try source.token(at: 0)
        #expect(try source.token(at: 50 * 60 - 1) == first)
        let second = try source.token(at: 50 * 60)
        #expect(second != first && source.value.current?.issuedAt == Self.start.addingTimeInterval(50 * 60))
    }

    @Test func anExpiredTokenIsReplacedOnlyOnceTwentyMinutesOld() throws {
        let source = try Source(key)
        let first = try source.token(at: 0)
        #expect(try !source.expired(at: 19 * 60), "APNs refuses a token replaced within 20 minutes")
        #expect(try source.token(at: 19 * 60) == first)
        #expect(try source.expired(at: 20 * 60))
        #expect(try source.token(at: 20 * 60) != first)
    }

    @Test("a token an earlier run signed is reused while younger than 50 minutes, and only if this key and team signed it")
    func aStoredTokenIsReusedOnlyWhenStillGood() throws {
        let credentials = APNsProviderToken.Credentials(key: key, keyID: "ABC123DEFG", teamID: "TEAM456789")
        var earlier = APNsProviderToken(credentials: credentials)
        let stored = try earlier.token(at: Self.start)
        func firstToken(of credentials: APNsProviderToken.Credentials, reusing token: String, at seconds: TimeInterval) throws -> String {
            var restarted = APNsProviderToken(credentials: credentials, reusing: token, at: Self.start.addingTimeInterval(seconds))
            return try restarted.token(at: Self.start.addingTimeInterval(seconds))
        }
        #expect(try firstToken(of: credentials, reusing: stored, at: 0) == stored)
        #expect(try firstToken(of: credentials, reusing: stored, at: 50 * 60 - 1) == stored)
        #expect(try firstToken(of: credentials, reusing: stored, at: 50 * 60) != stored, "too old")
        #expect(try firstToken(of: credentials, reusing: stored, at: -1) != stored, "dated after now")
        var otherKey = credentials
        otherKey.key = P256.Signing.PrivateKey()
        #expect(try firstToken(of: otherKey, reusing: stored, at: 60) != stored, "another key, under the same key id")
        var otherKeyID = credentials
        otherKeyID.keyID = "ZZZ999ZZZZ"
        #expect(try firstToken(of: otherKeyID, reusing: stored, at: 60) != stored)
        var otherTeam = credentials
        otherTeam.teamID = "OTHER00000"
        #expect(try firstToken(of: otherTeam, reusing: stored, at: 60) != stored)
        #expect(try firstToken(of: credentials, reusing: "not.a.token", at: 60) != "not.a.token")

        var reused = APNsProviderToken(credentials: credentials, reusing: stored, at: Self.start.addingTimeInterval(60))
        #expect(reused.current?.issuedAt == Self.start, "its age counts from its own iat")
        #expect(try !reused.expired(at: Self.start.addingTimeInterval(19 * 60)), "the 20 minutes count across a restart")
    }

    @Test func aKeyFileThatIsNoP256KeyIsRefused() {
        #expect(throws: (any Error).self) {
            try APNsProviderToken.Credentials(p8: "-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----", keyID: "K", teamID: "T")
        }
    }
}
