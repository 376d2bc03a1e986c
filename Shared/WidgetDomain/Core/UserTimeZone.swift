import Foundation

/// The time zones a user may set (`SetTimeZone`): every identifier the platform's time-zone
/// database resolves — canonical IANA names, their backward-compatible links (`US/Eastern`,
/// `Asia/Calcutta`, `Cuba`, `NZ-CHAT`), the `Etc/*` zones, the POSIX-style zones (`CET`,
/// `EST5EDT`) — and `UTC`. A fixed offset written as text (`GMT+5`, `UTC+3`, `GMT+0500`) is not
/// one: Foundation makes a zone out of any such text, but no tz database holds it and no device
/// reports it. The identifier is kept as the user gave it; a link computes with its target's rules.
public enum UserTimeZone {
    /// The zone `identifier` names, or nil when it names none a user may set.
    public static func zone(named identifier: String) -> TimeZone? {
        guard let zone = TimeZone(identifier: identifier), !isFixedOffset(zone.identifier) else { return nil }
        return zone
    }

    /// Whether `identifier` is the name Foundation gives a zone it made from an offset:
    /// `GMT+hhmm` or `GMT-hhmm`. (The tz database's own `Etc/GMT+5` and `GMT+0` are not.)
    private static func isFixedOffset(_ identifier: String) -> Bool {
        let bytes = identifier.utf8
        guard bytes.count == 8, identifier.hasPrefix("GMT+") || identifier.hasPrefix("GMT-") else { return false }
        return bytes.dropFirst(4).allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }
}
