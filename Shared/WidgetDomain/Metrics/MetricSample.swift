import Foundation

/// One measurement as a wearable or gateway sends it: who, when, from which device, and what.
///
/// On the wire a sample is flat and tagged by `kind`:
/// `{"kind":"hrv","user":"alice","takenAt":…,"source":"watch","milliseconds":52.5,"measure":"rmssd"}`,
/// `{"kind":"stress",…,"score":38}`, `{"kind":"rr",…,"intervals":[812,790,…]}`.
public struct MetricSample: Equatable, Sendable {
    public enum Reading: Equatable, Sendable {
        case hrv(milliseconds: Double, measure: HRVMeasure)
        case stress(score: Double)
        /// RR intervals in ms, in recording order.
        case rr(intervals: [Double])
    }

    public var user: String
    /// When the measurement was taken (for `rr`, when the recording started).
    public var takenAt: Date
    /// The device or gateway that measured it.
    public var source: String
    public var reading: Reading

    public init(user: String, takenAt: Date, source: String, reading: Reading) {
        self.user = user
        self.takenAt = takenAt
        self.source = source
        self.reading = reading
    }

    public var kind: MetricKind {
        switch reading {
        case .hrv: .hrv
        case .stress: .stress
        case .rr: .rr
        }
    }
}

extension MetricSample: Codable {
    private enum CodingKeys: String, CodingKey {
        case kind, user, takenAt, source, milliseconds, measure, score, intervals
    }

    /// Unknown `kind` or `measure` strings are refused with their own reason, so a client learns
    /// which vocabulary it got wrong; any other decoding failure is a malformed sample.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let kindText = try container.decode(String.self, forKey: .kind)
        guard let kind = MetricKind(rawValue: kindText) else {
            throw MetricRejection(.unknownKind, "kind \(kindText.debugDescription) is not one of hrv, stress, rr")
        }
        user = try container.decode(String.self, forKey: .user)
        takenAt = try container.decode(Date.self, forKey: .takenAt)
        source = try container.decode(String.self, forKey: .source)
        switch kind {
        case .hrv:
            let measureText = try container.decode(String.self, forKey: .measure)
            guard let measure = HRVMeasure(rawValue: measureText) else {
                throw MetricRejection(.unknownMeasure, "measure \(measureText.debugDescription) is not rmssd or sdnn")
            }
            reading = .hrv(milliseconds: try container.decode(Double.self, forKey: .milliseconds), measure: measure)
        case .stress:
            reading = .stress(score: try container.decode(Double.self, forKey: .score))
        case .rr:
            reading = .rr(intervals: try container.decode([Double].self, forKey: .intervals))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .kind)
        try container.encode(user, forKey: .user)
        try container.encode(takenAt, forKey: .takenAt)
        try container.encode(source, forKey: .source)
        switch reading {
        case .hrv(let milliseconds, let measure):
            try container.encode(milliseconds, forKey: .milliseconds)
            try container.encode(measure, forKey: .measure)
        case .stress(let score):
            try container.encode(score, forKey: .score)
        case .rr(let intervals):
            try container.encode(intervals, forKey: .intervals)
        }
    }
}
