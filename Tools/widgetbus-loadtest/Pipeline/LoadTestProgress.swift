import Foundation
import Histogram
import ServiceSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a step has done so far, kept by the driver as replies come in.
struct StepProgress {
    let started: ContinuousClock.Instant
    var sent = 0
    var replies = 0
    var errors = 0
    var timeouts = 0
    /// Round trips so far, in microseconds from each intent's scheduled time.
    var roundTrip = Histogram<UInt64>.latencyMicroseconds()

    init(started: ContinuousClock.Instant) {
        self.started = started
    }

    mutating func recordReply(after latency: Duration, failed: Bool) {
        replies += 1
        if failed { errors += 1 }
        _ = roundTrip.record(latency.asMicroseconds)
    }
}

/// The live progress line on a terminal: one line on stderr, rewritten in place at most twice a
/// second, so the figures a run will report are visible while it runs. Nothing is written when
/// stderr is not a terminal (a script's log keeps only the final table).
struct LoadTestProgressLine {
    private let enabled = isatty(STDERR_FILENO) == 1
    private var lastShown: ContinuousClock.Instant?
    private let label: String

    init(label: String) {
        self.label = label
    }

    /// Shows `progress` (and the timelines received in the step so far) unless the line was shown less than
    /// half a second ago.
    mutating func show(_ progress: StepProgress, timelines: Int, now: ContinuousClock.Instant = .now) {
        guard enabled, lastShown.map({ now - $0 >= .milliseconds(500) }) ?? true else { return }
        lastShown = now
        let seconds = max(0.001, (now - progress.started).asSeconds)
        let p99 = progress.roundTrip.totalCount == 0 ? 0 : Double(progress.roundTrip.valueAtPercentile(99)) / 1_000
        let line = String(
            format: "%@ %5.1f s · %6.0f intents/s · round trip p99 %7.2f ms · %d timelines · %d errors · %d timeouts",
            label, seconds, Double(progress.sent) / seconds, p99, timelines, progress.errors, progress.timeouts)
        FileHandle.standardError.write(Data(("\r\u{1B}[2K" + line).utf8))
    }

    /// Clears the line, so the step's table starts on a clean line.
    func finish() {
        guard enabled, lastShown != nil else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8))
    }
}
