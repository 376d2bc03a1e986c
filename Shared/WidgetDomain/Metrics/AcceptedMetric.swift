import Foundation

/// A sample that passed validation, in the form the aggregate takes it: the score already
/// rounded, RR intervals already reduced to RMSSD and SDNN.
public enum AcceptedMetric: Equatable, Sendable {
    case stress(StressMeasurement)
    case hrv(HRVSample, measure: HRVMeasure)
    case rr(RRIntervalAnalysis, takenAt: Date)

    public var takenAt: Date {
        switch self {
        case .stress(let measurement): measurement.measuredAt
        case .hrv(let sample, _): sample.measuredAt
        case .rr(_, let takenAt): takenAt
        }
    }
}
