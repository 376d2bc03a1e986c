/// The units durations are waited, scheduled and reported in: one definition for every service
/// and tool.
extension Duration {
    /// Fractional seconds, as `Date` and `TimeInterval` take them.
    public var asSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    /// Fractional milliseconds, as latencies are reported.
    public var asMilliseconds: Double { asSeconds * 1_000 }

    /// Whole microseconds, never negative.
    public var asMicroseconds: UInt64 {
        UInt64(max(0, components.seconds)) * 1_000_000 + UInt64(max(0, components.attoseconds) / 1_000_000_000_000)
    }

    /// Whole milliseconds, rounded up so a wait never ends before its deadline (as a poll
    /// timeout takes it).
    public var millisecondsRoundedUp: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
    }
}
