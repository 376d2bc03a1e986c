/// HRV from raw RR intervals, the standard time-domain way (Task Force of the ESC/NASPE, 1996).
///
/// 1. **Range**: an interval outside 300–2000 ms (30–200 bpm) is an artefact.
/// 2. **Successive difference** (Malik): an in-range interval that differs by more than 20 % from
///    the previous *accepted* interval is an artefact (ectopic beat, missed or double detection).
///    The first in-range interval is the first reference.
/// 3. **RMSSD** = √(mean of (RRᵢ₊₁ − RRᵢ)²) over successive pairs of clean intervals that were
///    also adjacent in the recording: a difference across a removed artefact would measure the
///    gap, not the heart.
/// 4. **SDNN** = sample standard deviation (n − 1) of the clean intervals.
///
/// At least 10 clean intervals and one adjacent clean pair are required; fewer mean no result.
public struct RRIntervalAnalysis: Codable, Equatable, Sendable {
    public let rmssd: Double
    public let sdnn: Double
    /// Mean clean interval (ms); 60 000 / `meanNN` is the mean heart rate.
    public let meanNN: Double
    public let cleanIntervals: Int
    public let artefacts: Int

    public init(rmssd: Double, sdnn: Double, meanNN: Double, cleanIntervals: Int, artefacts: Int) {
        self.rmssd = rmssd
        self.sdnn = sdnn
        self.meanNN = meanNN
        self.cleanIntervals = cleanIntervals
        self.artefacts = artefacts
    }

    /// Which intervals of a recording are clean (steps 1 and 2), index by index.
    public static func cleanMask(_ intervals: [Double]) -> [Bool] {
        var previous: Double?
        return intervals.map { interval in
            guard interval.isFinite, MetricsLimits.rrPhysiologicalRange.contains(interval) else { return false }
            if let reference = previous, abs(interval - reference) > MetricsLimits.rrMaximumSuccessiveChange * reference {
                return false
            }
            previous = interval
            return true
        }
    }

    /// The analysis of `intervals` (ms, in recording order); nil when too few are clean.
    public static func analyze(_ intervals: [Double]) -> RRIntervalAnalysis? {
        let clean = cleanMask(intervals)
        let values = zip(intervals, clean).filter(\.1).map(\.0)
        let differences = intervals.indices.dropLast()
            .filter { clean[$0] && clean[$0 + 1] }
            .map { intervals[$0 + 1] - intervals[$0] }
        guard values.count >= MetricsLimits.rrMinimumCleanIntervals, !differences.isEmpty else { return nil }

        let mean = values.reduce(0, +) / Double(values.count)
        let variance = values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(values.count - 1)
        let meanSquare = differences.reduce(0) { $0 + $1 * $1 } / Double(differences.count)
        return RRIntervalAnalysis(
            rmssd: meanSquare.squareRoot(), sdnn: variance.squareRoot(), meanNN: mean,
            cleanIntervals: values.count, artefacts: intervals.count - values.count)
    }
}
