extension Duration {
    /// Whole milliseconds, rounded up so a wait never ends before its deadline (as a poll
    /// timeout takes it).
    public var millisecondsRoundedUp: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
    }
}
