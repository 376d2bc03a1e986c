/// The units the benchmarks report in.
extension Duration {
    var asSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    var asMilliseconds: Double { asSeconds * 1_000 }

    /// Whole microseconds, never negative.
    var asMicroseconds: UInt64 {
        UInt64(max(0, components.seconds)) * 1_000_000 + UInt64(max(0, components.attoseconds) / 1_000_000_000_000)
    }
}
