import Histogram

extension Histogram<UInt64> {
    /// A latency histogram in microseconds, up to ten minutes at three significant digits: one
    /// definition for every measurement of the tool, so their figures are comparable.
    static func latencyMicroseconds() -> Histogram<UInt64> {
        Histogram(highestTrackableValue: 600_000_000, numberOfSignificantValueDigits: .three)
    }
}
