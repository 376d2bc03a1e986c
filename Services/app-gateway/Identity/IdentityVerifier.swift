import Foundation
import JWTKit

/// A user proven by a bearer token: who issued it, whom it names, and the bus user id that
/// follows from those two alone.
public struct VerifiedIdentity: Equatable, Sendable {
    public let issuer: String
    public let subject: String
    /// BusUserID.make(alias: the issuer's alias, subject: subject).
    public let userID: String
    public let expiresAt: Date
}

/// Decides whether an `Authorization` header proves a user, against the trusted issuers.
///
/// The checks run in this order, and the first that fails is the refusal: the header is
/// `Bearer <token>`; the token is three base64url parts (header and claims JSON) and its header
/// has no `crit`; `alg` is not `none` and not HMAC; `iss` is a trusted issuer; `alg` is one of
/// that issuer's algorithms; `kid` is present and one of that issuer's keys; the key's type is
/// the one `alg` needs; the signature verifies; `aud` names one of the issuer's audiences; `exp`
/// is present and not past; `nbf`, if present, is not ahead; `sub` is present.
///
/// The token never chooses how it is checked (RFC 8725 §3.1): `iss` only selects among
/// configured issuers, `alg` must be one the issuer is pinned to and agree with the key's own
/// type, and header members that point elsewhere for a key (`jku`, `jwk`, `x5u`, `x5c`) are
/// ignored. `iat` is not checked. `now` is passed in: nothing here reads a clock.
public struct IdentityVerifier: Sendable {
    /// The most clock skew between an issuer and app-gateway that the configuration may allow.
    public static let maxLeeway: Duration = .seconds(60)

    private let issuers: [String: TrustedIssuer]
    private let leeway: TimeInterval

    /// Refuses two issuers with one `iss` or one alias, and a leeway outside 0…60 s. A token is
    /// still accepted `leeway` after its `exp` and already `leeway` before its `nbf`.
    public init(issuers: [TrustedIssuer], leeway: Duration = maxLeeway) throws(IdentityConfigurationError) {
        guard leeway >= .zero, leeway <= Self.maxLeeway else {
            throw IdentityConfigurationError("the clock skew leeway must be 0–60 s, not \(leeway)")
        }
        guard !issuers.isEmpty else { throw IdentityConfigurationError("no trusted issuer is configured") }
        var byIssuer: [String: TrustedIssuer] = [:]
        for issuer in issuers {
            guard byIssuer[issuer.issuer] == nil else {
                throw IdentityConfigurationError("issuer \(issuer.issuer) is configured twice")
            }
            guard !byIssuer.values.contains(where: { $0.alias == issuer.alias }) else {
                throw IdentityConfigurationError("two issuers share the alias \(issuer.alias)")
            }
            byIssuer[issuer.issuer] = issuer
        }
        self.issuers = byIssuer
        self.leeway = Double(leeway.components.seconds) + Double(leeway.components.attoseconds) / 1e18
    }

    public func verify(authorizationHeader: String?, now: Date) async throws(IdentityRefusal) -> VerifiedIdentity {
        let token = try Self.bearerToken(authorizationHeader)
        let parsed: (header: JWTHeader, payload: TokenClaims, signature: Data)
        do {
            parsed = try DefaultJWTParser().parse(token, as: TokenClaims.self)
        } catch {
            throw .malformedToken
        }
        let header = parsed.header, claims = parsed.payload
        guard header.fields["crit"] == nil, let alg = header.alg else { throw .malformedToken }
        guard alg.lowercased() != "none" else { throw .unsignedToken }
        guard !alg.uppercased().hasPrefix("HS") else { throw .hmacAlgorithm }
        guard let iss = claims.iss?.value, let issuer = issuers[iss] else { throw .unknownIssuer }
        guard let algorithm = SigningAlgorithm(rawValue: alg), issuer.algorithms.contains(algorithm) else {
            throw .algorithmNotAllowed
        }
        guard let kid = header.kid else { throw .missingKeyID }
        guard let key = await issuer.keys.key(id: kid) else { throw .unknownKeyID }
        guard key.algorithm == algorithm else { throw .keyAlgorithmMismatch }
        guard let lastDot = token.lastIndex(of: UInt8(ascii: ".")),
            key.verifies(parsed.signature, signs: token[..<lastDot])
        else { throw .badSignature }

        guard let audiences = claims.aud?.value, audiences.contains(where: issuer.audiences.contains) else {
            throw .wrongAudience
        }
        guard let expiresAt = claims.exp?.value else { throw .missingExpiration }
        guard now <= expiresAt.addingTimeInterval(leeway) else { throw .expired }
        if let notBefore = claims.nbf?.value, notBefore.addingTimeInterval(-leeway) > now { throw .notYetValid }
        guard let subject = claims.sub?.value, !subject.isEmpty else { throw .missingSubject }
        return VerifiedIdentity(
            issuer: iss, subject: subject, userID: BusUserID.make(alias: issuer.alias, subject: subject),
            expiresAt: expiresAt)
    }

    /// The token of `Bearer <token>`. The scheme is case-insensitive (RFC 9110 §11.1) and
    /// followed by one or more spaces; the token is one word of base64url characters and dots.
    private static func bearerToken(_ header: String?) throws(IdentityRefusal) -> [UInt8] {
        guard let header else { throw .missingAuthorization }
        let bytes = Array(header.utf8)
        let scheme = Array("bearer ".utf8)
        guard bytes.count > scheme.count,
            zip(bytes, scheme).allSatisfy({ $0 | 0x20 == $1 })
        else { throw .malformedAuthorization }
        let token = bytes.dropFirst(scheme.count).drop(while: { $0 == UInt8(ascii: " ") })
        guard !token.isEmpty, !token.contains(UInt8(ascii: " ")) else { throw .malformedAuthorization }
        guard token.allSatisfy(isTokenCharacter) else { throw .malformedToken }
        return Array(token)
    }

    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x41...0x5A, 0x61...0x7A, 0x30...0x39, 0x2D, 0x5F, 0x2E: true
        default: false
        }
    }
}

/// The claims app-gateway reads; any other claim is ignored. A claim of the wrong JSON type
/// fails decoding, so the token is refused as malformed.
struct TokenClaims: JWTPayload {
    var iss: IssuerClaim?
    var sub: SubjectClaim?
    var aud: AudienceClaim?
    var exp: ExpirationClaim?
    var nbf: NotBeforeClaim?

    /// Required by JWTPayload; never called. jwt-kit's own claim checks read the system clock,
    /// so IdentityVerifier checks these claims itself against the date it is given.
    func verify(using algorithm: some JWTAlgorithm) {}
}
