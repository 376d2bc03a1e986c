import Foundation

/// What metrics-ingest keeps per user and publishes: the figures the Stress Monitor widget
/// shows, built from every accepted sample.
///
/// - the latest stress score by `takenAt` (a late sample never replaces a newer one);
/// - per HRV measure, the last 24 local hours that have readings, each the mean of its readings
///   (RR recordings add their RMSSD and SDNN);
/// - the latest RR analysis, for reference.
///
/// The widget charts RMSSD when the user has any, else SDNN (``widgetHRV``): the two measures
/// are never mixed in one series.
public struct MetricsAggregate: Equatable, Sendable {
    /// An RR recording's result with when it was taken.
    public struct RRReading: Equatable, Sendable {
        public var takenAt: Date
        public var analysis: RRIntervalAnalysis

        public init(takenAt: Date, analysis: RRIntervalAnalysis) {
            self.takenAt = takenAt
            self.analysis = analysis
        }
    }

    public var latestStress: StressMeasurement?
    public var hourlyRMSSD: [HRVHourlyValue]
    public var hourlySDNN: [HRVHourlyValue]
    public var latestRR: RRReading?

    public init(
        latestStress: StressMeasurement? = nil, hourlyRMSSD: [HRVHourlyValue] = [], hourlySDNN: [HRVHourlyValue] = [],
        latestRR: RRReading? = nil
    ) {
        self.latestStress = latestStress
        self.hourlyRMSSD = hourlyRMSSD
        self.hourlySDNN = hourlySDNN
        self.latestRR = latestRR
    }

    public static let empty = MetricsAggregate()

    /// The aggregate with `metric` counted; hours are the user's local hours in `calendar`.
    /// Returns `self` unchanged when the metric changes nothing shown (an older stress score,
    /// an hour before a full window).
    public func applying(_ metric: AcceptedMetric, calendar: LocalCalendar) -> MetricsAggregate {
        var next = self
        switch metric {
        case .stress(let measurement):
            if latestStress.map({ measurement.measuredAt > $0.measuredAt }) ?? true {
                next.latestStress = measurement
            }
        case .hrv(let sample, let measure):
            next.add(sample.milliseconds, measure: measure, hourStart: calendar.startOfHour(for: sample.measuredAt))
        case .rr(let analysis, let takenAt):
            let hourStart = calendar.startOfHour(for: takenAt)
            next.add(analysis.rmssd, measure: .rmssd, hourStart: hourStart)
            next.add(analysis.sdnn, measure: .sdnn, hourStart: hourStart)
            if latestRR.map({ takenAt > $0.takenAt }) ?? true {
                next.latestRR = RRReading(takenAt: takenAt, analysis: analysis)
            }
        }
        return next
    }

    private mutating func add(_ value: Double, measure: HRVMeasure, hourStart: Date) {
        switch measure {
        case .rmssd: hourlyRMSSD = HRVHourlySeries.adding(value, hourStart: hourStart, to: hourlyRMSSD)
        case .sdnn: hourlySDNN = HRVHourlySeries.adding(value, hourStart: hourStart, to: hourlySDNN)
        }
    }

    /// The hourly series the widget charts — RMSSD if there is any, else SDNN — or nil without HRV.
    public var widgetHRV: (measure: HRVMeasure, hours: [HRVHourlyValue])? {
        if !hourlyRMSSD.isEmpty { return (.rmssd, hourlyRMSSD) }
        if !hourlySDNN.isEmpty { return (.sdnn, hourlySDNN) }
        return nil
    }

    /// Average, maximum and "vs Avg" of the charted series, computed as the widget does.
    public var hrvSummary: HRVSummary? {
        widgetHRV.map { HRVSummary(values: $0.hours.map(\.milliseconds)) }
    }
}
