/// The rolling window of HRV readings the medium widget charts: the latest
/// ``StressMonitorLimits/hrvHistoryLimit`` samples, oldest first.
public enum HRVHistory {
    /// `history` with `sample` in time order, keeping the newest `limit` samples.
    ///
    /// A sample at the same instant as a kept one replaces it, so a replayed reading is counted
    /// once; a sample older than a full window is not in "the last 24" and changes nothing.
    public static func inserting(
        _ sample: HRVSample,
        into history: [HRVSample],
        limit: Int = StressMonitorLimits.hrvHistoryLimit
    ) -> [HRVSample] {
        var samples = history.filter { $0.measuredAt != sample.measuredAt }
        let index = samples.firstIndex { $0.measuredAt > sample.measuredAt } ?? samples.endIndex
        samples.insert(sample, at: index)
        return Array(samples.suffix(limit))
    }
}
