import Foundation

/// One local hour of HRV readings of one measure: the hour's value is their mean.
public struct HRVHourlyValue: Codable, Equatable, Sendable {
    /// The start of the local hour in the user's zone (`LocalCalendar.startOfHour`).
    public var hourStart: Date
    /// Mean of the hour's readings, in ms.
    public var milliseconds: Double
    /// How many readings the mean is over, so a late reading joins it with the right weight.
    public var samples: Int

    public init(hourStart: Date, milliseconds: Double, samples: Int = 1) {
        self.hourStart = hourStart
        self.milliseconds = milliseconds
        self.samples = samples
    }

    /// This hour with one more reading in its mean.
    public func adding(_ value: Double) -> HRVHourlyValue {
        HRVHourlyValue(
            hourStart: hourStart, milliseconds: milliseconds + (value - milliseconds) / Double(samples + 1),
            samples: samples + 1)
    }
}

/// The last ``MetricsLimits/hourlyValuesKept`` hours that have readings, oldest first.
public enum HRVHourlySeries {
    /// `series` with `value` counted in the hour starting at `hourStart`, wherever that hour falls
    /// in time: arrival order never decides placement. An hour older than a full window is not in
    /// "the last 24" and changes nothing (as ``HRVHistory`` treats a late reading).
    public static func adding(
        _ value: Double, hourStart: Date, to series: [HRVHourlyValue], limit: Int = MetricsLimits.hourlyValuesKept
    ) -> [HRVHourlyValue] {
        var series = series
        if let index = series.firstIndex(where: { $0.hourStart == hourStart }) {
            series[index] = series[index].adding(value)
            return series
        }
        if series.count >= limit, let oldest = series.first, hourStart < oldest.hourStart {
            return series
        }
        let index = series.firstIndex { $0.hourStart > hourStart } ?? series.endIndex
        series.insert(HRVHourlyValue(hourStart: hourStart, milliseconds: value), at: index)
        return Array(series.suffix(limit))
    }
}
