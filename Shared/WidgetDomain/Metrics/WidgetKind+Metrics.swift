extension WidgetKind {
    /// Whether this kind also shows metrics-ingest's aggregate (``MetricsAggregate``): readers
    /// rebuild its timeline when the user's metrics change, not only their state.
    public var showsMetrics: Bool {
        self == .stressMonitor
    }
}
