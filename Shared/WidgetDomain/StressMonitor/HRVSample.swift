import Foundation

/// One heart-rate-variability reading.
public struct HRVSample: Codable, Equatable, Sendable {
    public let milliseconds: Double
    public let measuredAt: Date

    public init(milliseconds: Double, measuredAt: Date) {
        self.milliseconds = milliseconds
        self.measuredAt = measuredAt
    }
}
