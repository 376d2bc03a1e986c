import Crypto
import WidgetBusProtocol

/// The short name a trusted issuer goes by in the bus user ids it proves (`apple`, `app`).
///
/// 1–16 characters of `a`–`z`, `0`–`9` and `-`: no `:`, so the first `:` of a user id ends the
/// alias and two issuers can never produce the same id; short, so the rest of the id keeps most
/// of ProtocolLimits' 128 bytes. Each configured issuer has its own (IdentityVerifier refuses two
/// issuers with one alias). Changing an issuer's alias changes every id it proves: its users
/// would start again as new bus users.
public struct IssuerAlias: Hashable, Sendable, CustomStringConvertible {
    public static let maxLength = 16

    public let description: String

    public init(_ alias: String) throws(IdentityConfigurationError) {
        guard (1...Self.maxLength).contains(alias.utf8.count),
            alias.utf8.allSatisfy({ (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D })
        else {
            throw IdentityConfigurationError(
                "issuer alias \"\(alias)\" must be 1–\(Self.maxLength) characters of a-z, 0-9 and '-'")
        }
        description = alias
    }
}

/// The bus user id of a proven (issuer, subject): the only way app-gateway names a user on the bus.
///
/// The id is `<alias>:<subject percent-encoded>`: every UTF-8 byte of the subject outside
/// `A`–`Z a`–`z 0`–`9 - . _ ~` becomes `%XX` (upper-case hex), so `/`, `\`, `%`, `:`, spaces,
/// control, invisible and all non-ASCII characters never appear as themselves. Apple's subjects
/// (`001234.0123456789abcdef….0123`, about 44 bytes) and most backends' (UUIDs, numbers) pass
/// through unchanged, so an operator can find a user's data from the id in the issuer's records.
/// This part of the mapping is injective: the subject can be read back from the id.
///
/// A subject whose encoding would make the id longer than ProtocolLimits.maxUserIDBytes maps to
/// `<alias>:h:<SHA-256 of the subject's UTF-8 bytes, in lower-case base32 without padding>`
/// (52 characters). That part is collision-resistant rather than injective: two subjects share an
/// id only if they share a SHA-256 digest. It cannot meet an encoded id, which never has a
/// second `:` (an encoded subject's own `:` is `%3A`).
///
/// Every id is ASCII (so in NFC), 3–128 bytes, never `.` or `..`, and free of `/`, `\` and
/// control characters: it passes ProtocolLimits.validateUser. Subjects are compared as bytes, as
/// RFC 7519 compares StringOrURI values: `é` precomposed and `e` + U+0301 are two subjects and
/// two users. The mapping is pinned by golden values in the tests; changing it strands every
/// user's state under the old id.
public enum BusUserID {
    public static func make(alias: IssuerAlias, subject: String) -> String {
        let prefix = alias.description + ":"
        let encoded = percentEncoded(subject)
        if prefix.utf8.count + encoded.utf8.count <= ProtocolLimits.maxUserIDBytes {
            return prefix + encoded
        }
        return prefix + "h:" + base32(SHA256.hash(data: Array(subject.utf8)))
    }

    private static func percentEncoded(_ subject: String) -> String {
        var out = ""
        out.reserveCapacity(subject.utf8.count)
        for byte in subject.utf8 {
            if isUnreserved(byte) {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "%"
                out.unicodeScalars.append(hexDigits[Int(byte >> 4)])
                out.unicodeScalars.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        return out
    }

    /// RFC 3986's unreserved characters: the only bytes an id carries as themselves.
    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x41...0x5A, 0x61...0x7A, 0x30...0x39, 0x2D, 0x2E, 0x5F, 0x7E: true
        default: false
        }
    }

    private static let hexDigits = Array("0123456789ABCDEF".unicodeScalars)
    private static let base32Alphabet = Array("abcdefghijklmnopqrstuvwxyz234567".unicodeScalars)

    /// RFC 4648 base32 in lower case, without padding: file-name and topic safe, and one case,
    /// so the digest part of an id means the same on a case-insensitive file system.
    private static func base32(_ digest: SHA256.Digest) -> String {
        var out = ""
        var buffer: UInt32 = 0
        var bits = 0
        for byte in digest {
            buffer = (buffer << 8) | UInt32(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                out.unicodeScalars.append(base32Alphabet[Int((buffer >> UInt32(bits)) & 0x1F)])
            }
        }
        if bits > 0 {
            out.unicodeScalars.append(base32Alphabet[Int((buffer << UInt32(5 - bits)) & 0x1F)])
        }
        return out
    }
}
