/// An issuer whose tokens app-gateway accepts as proof of a user: its `iss`, the audiences that
/// name this app, the algorithms it signs with, where its keys come from, and its alias in bus
/// user ids.
public struct TrustedIssuer: Sendable {
    /// Sign in with Apple's `iss`.
    public static let appleIssuer = "https://appleid.apple.com"

    public let issuer: String
    public let alias: IssuerAlias
    public let audiences: Set<String>
    public let algorithms: Set<SigningAlgorithm>
    public let keys: any SigningKeySource

    /// Refuses an empty `iss`, no audience or an empty one, and no algorithm: each would make
    /// the issuer accept nothing, or accept a token meant for any app.
    public init(
        issuer: String, alias: IssuerAlias, audiences: Set<String>, algorithms: Set<SigningAlgorithm>,
        keys: any SigningKeySource
    ) throws(IdentityConfigurationError) {
        guard !issuer.isEmpty else { throw IdentityConfigurationError("an issuer's iss is empty") }
        guard !audiences.isEmpty, !audiences.contains("") else {
            throw IdentityConfigurationError("issuer \(issuer) needs at least one audience, none empty")
        }
        guard !algorithms.isEmpty else { throw IdentityConfigurationError("issuer \(issuer) allows no algorithm") }
        self.issuer = issuer
        self.alias = alias
        self.audiences = audiences
        self.algorithms = algorithms
        self.keys = keys
    }

    /// Sign in with Apple: `iss` `https://appleid.apple.com`, audience the app's bundle id(s),
    /// RS256 only — the one algorithm Apple signs identity tokens with.
    public static func signInWithApple(
        bundleIDs: Set<String>, keys: any SigningKeySource, alias: IssuerAlias
    ) throws(IdentityConfigurationError) -> TrustedIssuer {
        try TrustedIssuer(issuer: appleIssuer, alias: alias, audiences: bundleIDs, algorithms: [.rs256], keys: keys)
    }
}
