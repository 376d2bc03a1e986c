/// Why a request's bearer token proves no user. Each case is one documented reason
/// (docs/API.md, "Identity"), named by its case (the `reason` label of
/// `widgetbus_gateway_token_refusals_total`); app-gateway answers all of them with 401.
///
/// The descriptions are fixed ASCII text without `"` or `\`, safe as the `error_description` of
/// a `WWW-Authenticate: Bearer` header, and they never repeat what the token said (its issuer,
/// kid or subject), which an attacker chooses.
public enum IdentityRefusal: String, Error, Equatable, Sendable, CaseIterable, CustomStringConvertible {
    /// No `Authorization` header.
    case missingAuthorization
    /// An `Authorization` header that is not `Bearer <token>`.
    case malformedAuthorization
    /// Not three base64url parts of JSON header, JSON claims and signature, a claim of the wrong
    /// JSON type, or a `crit` header (no JWS extension is understood, so none may be required).
    case malformedToken
    /// `alg: none` in any spelling: an unsigned token proves nothing.
    case unsignedToken
    /// An HMAC algorithm (`HS256`, `HS384`, `HS512`): verified with a public key as the secret,
    /// anyone holding the public key could sign (algorithm confusion).
    case hmacAlgorithm
    /// An `iss` that is no trusted issuer, or none.
    case unknownIssuer
    /// An `alg` its issuer is not configured for.
    case algorithmNotAllowed
    /// No `kid` in the header: every trusted issuer names the key it signed with.
    case missingKeyID
    /// A `kid` that is none of the issuer's keys.
    case unknownKeyID
    /// The `kid` names a key of another type than `alg` needs (an EC key for `EdDSA`).
    case keyAlgorithmMismatch
    /// The signature does not verify under the named key.
    case badSignature
    /// No `aud` value is one of the issuer's configured audiences.
    case wrongAudience
    /// No `exp`: a token that never expires is not accepted.
    case missingExpiration
    /// `exp` plus the leeway is before now.
    case expired
    /// `nbf` minus the leeway is after now.
    case notYetValid
    /// No `sub`, or an empty one: there is no user to map.
    case missingSubject

    /// The `error` of RFC 6750 §3.1: none when the request carried no credentials at all (the
    /// RFC asks for no error code then), `invalid_request` for a header that is not a bearer
    /// credential, `invalid_token` for every token refused.
    public var bearerError: String? {
        switch self {
        case .missingAuthorization: nil
        case .malformedAuthorization: "invalid_request"
        default: "invalid_token"
        }
    }

    public var description: String {
        switch self {
        case .missingAuthorization: "no Authorization header"
        case .malformedAuthorization: "the Authorization header is not Bearer and a token"
        case .malformedToken: "the token is not a well-formed JWS compact JWT"
        case .unsignedToken: "unsigned tokens (alg none) are not accepted"
        case .hmacAlgorithm: "HMAC-signed tokens are not accepted"
        case .unknownIssuer: "the token's issuer is not trusted"
        case .algorithmNotAllowed: "the token's algorithm is not allowed for its issuer"
        case .missingKeyID: "the token names no key (kid)"
        case .unknownKeyID: "the token's key (kid) is not one of its issuer's keys"
        case .keyAlgorithmMismatch: "the token's algorithm does not match its key's type"
        case .badSignature: "the token's signature does not verify"
        case .wrongAudience: "the token is not meant for this app (aud)"
        case .missingExpiration: "the token has no expiry (exp)"
        case .expired: "the token has expired"
        case .notYetValid: "the token is not valid yet (nbf)"
        case .missingSubject: "the token has no subject (sub)"
        }
    }
}
