import Benchmark

/// The suite package-benchmark runs: its BenchmarkPlugin generates the `main` that calls this.
let benchmarks: @Sendable () -> Void = {
    IntentBenchmarks.register()
    TimelineBenchmarks.register()
    MetricsBenchmarks.register()
}
