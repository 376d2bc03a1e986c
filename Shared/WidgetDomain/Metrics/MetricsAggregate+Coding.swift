import Foundation

/// The aggregate on the wire and in the store. Besides what is kept, it writes what a client
/// would otherwise recompute — the stress category and the charted HRV summary — which
/// decoding ignores (they follow from the rest).
///
/// `{"latestStress"?: {"score", "category", "takenAt"}, "hourlyRMSSD": [HRVHourlyValue],
/// "hourlySDNN": [HRVHourlyValue], "latestRR"?: {"takenAt", "rmssd", "sdnn", "meanNN",
/// "cleanIntervals", "artefacts"}, "hrv"?: {"measure", "values", "average", "maximum",
/// "trendPercent", "trendDirection"}}`
extension MetricsAggregate: Codable {
    private enum CodingKeys: String, CodingKey {
        case latestStress, hourlyRMSSD, hourlySDNN, latestRR, hrv
    }

    private enum StressKeys: String, CodingKey {
        case score, category, takenAt
    }

    private enum RRKeys: String, CodingKey {
        case takenAt
    }

    private enum SummaryKeys: String, CodingKey {
        case measure, values, average, maximum, trendPercent, trendDirection
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if container.contains(.latestStress), try !container.decodeNil(forKey: .latestStress) {
            let stress = try container.nestedContainer(keyedBy: StressKeys.self, forKey: .latestStress)
            latestStress = StressMeasurement(
                stressLevel: try stress.decode(Int.self, forKey: .score), measuredAt: try stress.decode(Date.self, forKey: .takenAt))
        }
        hourlyRMSSD = try container.decodeIfPresent([HRVHourlyValue].self, forKey: .hourlyRMSSD) ?? []
        hourlySDNN = try container.decodeIfPresent([HRVHourlyValue].self, forKey: .hourlySDNN) ?? []
        if container.contains(.latestRR), try !container.decodeNil(forKey: .latestRR) {
            let decoder = try container.superDecoder(forKey: .latestRR)
            latestRR = RRReading(
                takenAt: try decoder.container(keyedBy: RRKeys.self).decode(Date.self, forKey: .takenAt),
                analysis: try RRIntervalAnalysis(from: decoder))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        if let latestStress {
            var stress = container.nestedContainer(keyedBy: StressKeys.self, forKey: .latestStress)
            try stress.encode(latestStress.stressLevel, forKey: .score)
            try stress.encode(latestStress.category, forKey: .category)
            try stress.encode(latestStress.measuredAt, forKey: .takenAt)
        }
        try container.encode(hourlyRMSSD, forKey: .hourlyRMSSD)
        try container.encode(hourlySDNN, forKey: .hourlySDNN)
        if let latestRR {
            let encoder = container.superEncoder(forKey: .latestRR)
            try latestRR.analysis.encode(to: encoder)
            var rr = encoder.container(keyedBy: RRKeys.self)
            try rr.encode(latestRR.takenAt, forKey: .takenAt)
        }
        if let series = widgetHRV, let summary = hrvSummary {
            var hrv = container.nestedContainer(keyedBy: SummaryKeys.self, forKey: .hrv)
            try hrv.encode(series.measure, forKey: .measure)
            try hrv.encode(series.hours.map(\.milliseconds), forKey: .values)
            try hrv.encode(summary.average, forKey: .average)
            try hrv.encode(summary.maximum, forKey: .maximum)
            try hrv.encodeIfPresent(summary.trend?.percent, forKey: .trendPercent)
            try hrv.encodeIfPresent(summary.trend?.direction, forKey: .trendDirection)
        }
    }
}
