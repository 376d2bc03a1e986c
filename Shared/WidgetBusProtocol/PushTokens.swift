import WidgetDomain

/// Which APNs a push token belongs to: a development build's tokens are valid only on the
/// sandbox, an App Store or TestFlight build's only on production.
public enum APNsEnvironment: String, CaseIterable, Codable, Sendable {
    case sandbox
    case production
}

/// One device's WidgetKit push token (`WidgetPushInfo.token`, as lowercase hex) and the widget
/// kinds on that device it wakes.
public struct WidgetPushToken: Codable, Sendable, Hashable {
    public var token: String
    public var environment: APNsEnvironment
    /// Sorted by raw value, each once: a change to any of them is pushed to this token.
    public var kinds: [WidgetKind]

    public init(token: String, environment: APNsEnvironment, kinds: [WidgetKind]) {
        self.token = token
        self.environment = environment
        self.kinds = Array(Set(kinds)).sorted { $0.rawValue < $1.rawValue }
    }

    public func covers(_ kind: WidgetKind) -> Bool { kinds.contains(kind) }

    /// Shortest and longest token accepted, in hex digits. APNs device tokens are 32 bytes today;
    /// Apple says they may grow, so up to 100 bytes are taken, and fewer than 16 cannot be one.
    public static let hexDigits = 32...200

    /// The token in its stored form (lowercase hex), or the error a client sees: hex digits only,
    /// an even number of them, within ``hexDigits``.
    public static func normalized(_ token: String) throws(ProtocolError) -> String {
        let digits = token.utf8
        guard hexDigits.contains(digits.count), digits.count.isMultiple(of: 2) else {
            throw ProtocolError(
                .invalidPushToken,
                "token must be an even number of \(hexDigits.lowerBound)–\(hexDigits.upperBound) hex digits, got \(digits.count) characters")
        }
        guard digits.allSatisfy({ $0.isHexDigit }) else {
            throw ProtocolError(.invalidPushToken, "token must be hex digits only (0-9, a-f)")
        }
        return token.lowercased()
    }
}

/// Every widget push token of one user, least recently registered first; `PushTokensReply` and
/// `PushTokensChanged` carry it.
public struct UserPushTokens: Codable, Sendable, Equatable {
    public var user: String
    public var tokens: [WidgetPushToken]
    /// The owner's sequence number of the last change (0: never registered one).
    public var version: UInt64

    public init(user: String, tokens: [WidgetPushToken], version: UInt64) {
        self.user = user
        self.tokens = tokens
        self.version = version
    }

    /// Most tokens a user keeps (their devices): registering one more drops the least recently
    /// registered, which a device that reinstalled the app or rotated its token left behind.
    public static let maxTokens = 20

    /// The tokens after `registration`: it replaces an entry for the same token (and for the one
    /// it `replaces`), goes last as the most recently registered, and the oldest beyond
    /// ``maxTokens`` are dropped.
    public func registering(_ registration: PushTokenRegistration) -> [WidgetPushToken] {
        var tokens = tokens.filter { $0.token != registration.token.token && $0.token != registration.replaces }
        tokens.append(registration.token)
        return Array(tokens.suffix(Self.maxTokens))
    }

    /// The tokens without `token`.
    public func removing(_ token: String) -> [WidgetPushToken] {
        tokens.filter { $0.token != token }
    }
}

/// `RegisterWidgetPushToken`'s body as the wire carries it.
public struct RegisterWidgetPushTokenBody: Codable, Sendable, Equatable {
    public var token: String
    public var environment: String
    public var kinds: [String]
    /// The token this one takes the place of (the device's previous one), removed in the same change.
    public var replaces: String?

    public init(token: String, environment: String, kinds: [String], replaces: String? = nil) {
        self.token = token
        self.environment = environment
        self.kinds = kinds
        self.replaces = replaces
    }
}

/// `RemoveWidgetPushToken`'s body.
public struct RemoveWidgetPushTokenBody: Codable, Sendable, Equatable {
    public var token: String
    public init(token: String) { self.token = token }
}

/// A validated `RegisterWidgetPushToken`: the token to keep and the one it replaces.
public struct PushTokenRegistration: Sendable, Equatable {
    public var token: WidgetPushToken
    public var replaces: String?

    public init(token: WidgetPushToken, replaces: String? = nil) {
        self.token = token
        self.replaces = replaces
    }

    /// Validates a body: the token (and `replaces`) as ``WidgetPushToken/normalized(_:)`` says,
    /// the environment `sandbox` or `production`, and one or more known widget kinds.
    public init(_ body: RegisterWidgetPushTokenBody) throws(ProtocolError) {
        guard let environment = APNsEnvironment(rawValue: body.environment) else {
            throw ProtocolError(.invalidField, "field body.environment must be sandbox or production, got \(body.environment)")
        }
        guard !body.kinds.isEmpty else {
            throw ProtocolError(.invalidField, "field body.kinds must name at least one widget kind")
        }
        var kinds: [WidgetKind] = []
        for name in body.kinds {
            guard let kind = WidgetKind(rawValue: name) else {
                throw ProtocolError(
                    .invalidField,
                    "field body.kinds: \(name) is not a widget kind (\(WidgetKind.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            kinds.append(kind)
        }
        token = WidgetPushToken(token: try WidgetPushToken.normalized(body.token), environment: environment, kinds: kinds)
        replaces = try body.replaces.map { token throws(ProtocolError) in try WidgetPushToken.normalized(token) }
    }
}

extension UInt8 {
    fileprivate var isHexDigit: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(self)
    }
}
