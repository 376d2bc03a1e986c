import Benchmark

extension Benchmark.Configuration {
    /// What every benchmark of the suite records, and the deviations from the stored baseline
    /// that fail `scripts/bench.sh` (docs/BENCHMARKS.md, "Micro-benchmarks").
    ///
    /// Each sample is one operation: a sample of many operations lasts long enough to be cut by
    /// the scheduler on a busy 2-core machine, which then slows every sample alike and moves even
    /// the fastest quarter; single operations mostly run uncut. The timer adds about 40 ns to
    /// each (nothing to the malloc count).
    static var widgetBus: Benchmark.Configuration {
        Benchmark.Configuration(
            // No `.instructions`: this project's machines have no perf counters, and asking for
            // them anyway costs 16 mallocs and ~30 ns per sample, which would pollute the figures.
            metrics: [.wallClock, .mallocCountTotal],
            warmupIterations: 100,
            scalingFactor: .one,
            maxDuration: .seconds(1),
            maxIterations: 10_000,
            thresholds: [
                // Allocations are exact and repeat run after run: a few percent is a real change.
                .mallocCountTotal: BenchmarkThresholds(relative: [.p50: 5]),
                // Time is the only measure of work left without instruction counts. The fastest
                // quarter of samples is what other load disturbs least; on this project's 2-core
                // machines it moved at most 10 % between runs, idle or beside a build.
                .wallClock: BenchmarkThresholds(relative: [.p25: 25]),
            ])
    }
}
