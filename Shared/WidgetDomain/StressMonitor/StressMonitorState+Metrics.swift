import Foundation

extension StressMonitorState {
    /// What the Stress Monitor widget shows when metrics-ingest also measures the user: every
    /// reader (timeline-service, snapshot-writer) renders this, so they agree.
    ///
    /// - The more recent stress reading wins, whichever side it came from; at the same instant
    ///   the app's (intent-handler owns the widget state; metrics are the supplement).
    /// - When metrics-ingest has hourly HRV values, that series (the hour starts, oldest first)
    ///   replaces the app-recorded history: it is the wearable's continuous record, already
    ///   reduced to one value per hour, and mixing the two would double-count readings the app
    ///   relayed.
    /// - `refreshRequestedAt` stays the app's.
    public func merged(with metrics: MetricsAggregate?) -> StressMonitorState {
        guard let metrics else { return self }
        var merged = self
        if let reading = metrics.latestStress, latest.map({ reading.measuredAt > $0.measuredAt }) ?? true {
            merged.latest = reading
        }
        if let series = metrics.widgetHRV {
            merged.hrvHistory = series.hours.map { HRVSample(milliseconds: $0.milliseconds, measuredAt: $0.hourStart) }
        }
        return merged
    }
}
