/// The medium widget's "-2% vs Avg": the newest HRV reading against the average of the
/// history it belongs to, in whole percent.
///
/// `percent = round((latest − average) × 100 / average)`, halves away from zero (multiplying
/// first keeps exact halves exact). Higher HRV means less physiological stress, so `.up` is the
/// favourable direction.
public struct HRVTrend: Equatable, Sendable {
    public let percent: Int
    public let direction: HRVTrendDirection

    public init(latest: Double, average: Double) {
        percent = average > 0 ? Int(((latest - average) * 100 / average).rounded()) : 0
        direction = percent > 0 ? .up : percent < 0 ? .down : .flat
    }

    /// The text the widget prints, e.g. `+7% vs Avg`, `-2% vs Avg`, `0% vs Avg`.
    public var label: String {
        "\(percent > 0 ? "+" : "")\(percent)% vs Avg"
    }
}

/// Which way the arrow beside a trend points.
public enum HRVTrendDirection: String, Codable, Sendable, CaseIterable {
    case up
    case down
    case flat
}
