import CommandLineText
import Foundation
import Histogram
import ServiceSupport
import WidgetBusProtocol

/// Percentiles of one latency, in milliseconds (recorded in microseconds by HdrHistogram, three
/// significant digits).
struct LatencySummary: Codable, Sendable {
    var count: Int
    var p50Milliseconds: Double
    var p90Milliseconds: Double
    var p99Milliseconds: Double
    var p999Milliseconds: Double
    var maxMilliseconds: Double
    var meanMilliseconds: Double

    init(_ histogram: Histogram<UInt64>) {
        count = Int(histogram.totalCount)
        let empty = histogram.totalCount == 0
        func ms(_ microseconds: UInt64) -> Double { empty ? 0 : Double(microseconds) / 1_000 }
        p50Milliseconds = ms(histogram.valueAtPercentile(50))
        p90Milliseconds = ms(histogram.valueAtPercentile(90))
        p99Milliseconds = ms(histogram.valueAtPercentile(99))
        p999Milliseconds = ms(histogram.valueAtPercentile(99.9))
        maxMilliseconds = ms(histogram.max)
        meanMilliseconds = empty ? 0 : histogram.mean / 1_000
    }
}

/// One point of a percentile curve.
struct PercentilePoint: Codable, Sendable {
    var percentile: Double
    var milliseconds: Double
}

/// Latencies of the intents scheduled within one slice of a step.
struct TimeBucket: Codable, Sendable {
    var startSeconds: Double
    var sent: Int
    /// Intents answered with an error or not answered in time.
    var failed: Int?
    var roundTripP50Milliseconds: Double?
    var roundTripP99Milliseconds: Double?
    var timelineP50Milliseconds: Double?
    var timelineP99Milliseconds: Double?
    var timelineMaxMilliseconds: Double?
}

struct WidgetFigures: Codable, Sendable {
    var sent: Int
    var errors: Int
    var roundTripP99Milliseconds: Double
    var timelineP50Milliseconds: Double
    var timelineP99Milliseconds: Double
}

/// The results of one step of load: what was offered and achieved, the two latencies, and what
/// became of every intent's timeline.
struct StepReport: Codable, Sendable {
    struct Timelines: Codable, Sendable {
        /// Intents that committed a new state version, so timeline-service owes a timeline.
        var expected: Int
        /// A timeline of the same user's app at that version or later arrived.
        var delivered: Int
        /// … and it was one whose `causedBy` is the intent's own id.
        var exact: Int
        /// … or a later intent's, because timeline-service coalesced a burst into its newest version.
        var coalesced: Int
        /// None arrived before the end of the grace period.
        var missing: Int
    }

    struct Curves: Codable, Sendable {
        var roundTrip: [PercentilePoint]
        var intentToTimeline: [PercentilePoint]
    }

    var mode: String
    var offeredRate: Double?
    var inFlight: Int?
    var durationSeconds: Double
    /// Open loop: intents due by the schedule; more than `sent` when the users were all waiting.
    var scheduled: Int?
    var sent: Int
    var replies: Int
    /// Intents sent per second over the step.
    var achievedRate: Double
    /// Successful replies per second over the step.
    var completedRate: Double
    var errors: [String: Int]
    var timeouts: Int
    var unchanged: Int
    var timelines: Timelines
    var roundTrip: LatencySummary
    var intentToTimeline: LatencySummary
    /// How late the sender was against the open-loop schedule (zero in a closed loop).
    var sendLag: LatencySummary
    var widgets: [String: WidgetFigures]
    var overTime: [TimeBucket]
    /// An open loop with a second phase at another rate: how soon after the switch it met its target.
    var recovery: Recovery?
    var percentiles: Curves
    /// Set by a rate search: whether the step met its target.
    var passed: Bool?
    /// Each service's CPU time over the step, when its process is known (`--pid`, or the local
    /// runner's pid files).
    var serviceCPU: [String: ServiceCPUUsage]?
    /// How far the snapshot files lagged their timelines, when snapshot-writer's metrics are known.
    var snapshotFileLag: SnapshotFileLag?

    var errorCount: Int { errors.values.reduce(0, +) }

    /// The second phase of an open loop, which follows the first without a pause: typically a
    /// rate the pipeline carries after one past its saturation.
    struct Recovery: Codable, Sendable {
        var rate: Double
        /// Where the phase starts in the step.
        var fromSeconds: Double
        var targetP99Milliseconds: Double
        /// From the switch to the start of the first slice of the step (``TimeBucket``) from which
        /// on every slice's intents all succeed and their round trip and intent → timeline p99
        /// are under the target; nil when the last slice is not.
        var recoveredAfterSeconds: Double?

        init(_ plan: LoadTestPlan.Recovery, after seconds: Double, overTime: [TimeBucket]) {
            rate = plan.rate
            fromSeconds = seconds
            targetP99Milliseconds = plan.targetP99
            let phase = overTime.filter { $0.startSeconds >= seconds && $0.sent > 0 }
            let meets = phase.map { slice in
                slice.failed ?? 0 == 0 && [slice.roundTripP99Milliseconds, slice.timelineP99Milliseconds].allSatisfy { ($0 ?? 0) < plan.targetP99 }
            }
            let firstOfTheRest = meets.lastIndex(of: false).map { $0 + 1 } ?? 0
            recoveredAfterSeconds = firstOfTheRest < phase.count ? phase[firstOfTheRest].startSeconds - seconds : nil
        }
    }
}

/// Where each user's app timelines arrived, for matching intents to timelines.
struct ArrivalIndex {
    private var times: [UserApp: [ContinuousClock.Instant]] = [:]
    /// The highest state version seen up to and including each arrival (so binary-searchable).
    private var versions: [UserApp: [UInt64]] = [:]
    private var causes: Set<String> = []

    init(_ arrivals: [TimelineArrival]) {
        for arrival in arrivals {
            let highest = max(versions[arrival.key]?.last ?? 0, arrival.stateVersion)
            times[arrival.key, default: []].append(arrival.at)
            versions[arrival.key, default: []].append(highest)
            if let cause = arrival.causedBy { causes.insert(cause) }
        }
    }

    /// When a timeline of `key` at `version` or later first arrived.
    func firstArrival(of key: UserApp, atLeast version: UInt64) -> ContinuousClock.Instant? {
        guard let highest = versions[key], let last = highest.last, last >= version else { return nil }
        var low = 0
        var high = highest.count - 1
        while low < high {
            let middle = (low + high) / 2
            if highest[middle] >= version { high = middle } else { low = middle + 1 }
        }
        return times[key]![low]
    }

    func hasTimeline(causedBy id: String) -> Bool { causes.contains(id) }
}

enum LoadTestAnalysis {
    /// Matches every intent of `step` to its timeline and summarises the step.
    ///
    /// An intent is delivered when a timeline of the same user's app arrives with a
    /// `stateVersion` at or above the version its reply reported. Matching by `causedBy` alone
    /// would miss intents whose change timeline-service coalesced into a later one (a burst for
    /// one user yields one timeline, carrying the latest intent's id), although what they changed
    /// is on screen; the count of those is reported as `coalesced`.
    static func report(_ step: StepRecords, arrivals: ArrivalIndex, recovery: LoadTestPlan.Recovery? = nil) -> StepReport {
        var roundTrip = Histogram<UInt64>.latencyMicroseconds()
        var toTimeline = Histogram<UInt64>.latencyMicroseconds()
        var sendLag = Histogram<UInt64>.latencyMicroseconds()
        var errors: [String: Int] = [:]
        var timeouts = 0
        var unchanged = 0
        var replies = 0
        var timelines = StepReport.Timelines(expected: 0, delivered: 0, exact: 0, coalesced: 0, missing: 0)

        let bucketSeconds = max(1, (step.duration.asSeconds / 120).rounded(.up))
        let bucketCount = max(1, Int((step.duration.asSeconds / bucketSeconds).rounded(.up)))
        var buckets = (0..<bucketCount).map { _ in (sent: 0, failed: 0, roundTrip: Histogram<UInt64>.latencyMicroseconds(), timeline: Histogram<UInt64>.latencyMicroseconds()) }
        var perWidget: [LoadWidget: (sent: Int, errors: Int, roundTrip: Histogram<UInt64>, timeline: Histogram<UInt64>)] = [:]

        for record in step.records {
            let bucket = min(bucketCount - 1, max(0, Int((record.scheduled - step.started).asSeconds / bucketSeconds)))
            buckets[bucket].sent += 1
            perWidget[record.widget, default: (0, 0, .latencyMicroseconds(), .latencyMicroseconds())].sent += 1
            _ = sendLag.record((record.sent - record.scheduled).asMicroseconds)
            if let replied = record.replied {
                replies += 1
                let latency = (replied - record.scheduled).asMicroseconds
                _ = roundTrip.record(latency)
                _ = buckets[bucket].roundTrip.record(latency)
                _ = perWidget[record.widget]!.roundTrip.record(latency)
            }
            switch record.outcome {
            case .pending, .timedOut:
                timeouts += 1
                buckets[bucket].failed += 1
                perWidget[record.widget]!.errors += 1
            case .error(let code):
                errors[code, default: 0] += 1
                buckets[bucket].failed += 1
                perWidget[record.widget]!.errors += 1
            case .unchanged:
                unchanged += 1
            case .changed(let version):
                timelines.expected += 1
                guard let arrived = arrivals.firstArrival(of: record.key, atLeast: version) else {
                    timelines.missing += 1
                    continue
                }
                timelines.delivered += 1
                if arrivals.hasTimeline(causedBy: record.id) { timelines.exact += 1 } else { timelines.coalesced += 1 }
                let latency = (arrived - record.scheduled).asMicroseconds
                _ = toTimeline.record(latency)
                _ = buckets[bucket].timeline.record(latency)
                _ = perWidget[record.widget]!.timeline.record(latency)
            }
        }

        let sendWindow = max(step.duration, step.lastSend - step.started).asSeconds
        let mode: String
        var offered: Double?
        var inFlight: Int?
        switch step.shape {
        case .open(let rate):
            mode = "open"
            offered = rate
        case .closed(let window):
            mode = "closed"
            inFlight = window
        }
        func ms(_ histogram: Histogram<UInt64>, _ percentile: Double) -> Double? {
            histogram.totalCount == 0 ? nil : Double(histogram.valueAtPercentile(percentile)) / 1_000
        }
        let overTime = buckets.enumerated().map { index, bucket in
            TimeBucket(
                startSeconds: Double(index) * bucketSeconds, sent: bucket.sent, failed: bucket.failed,
                roundTripP50Milliseconds: ms(bucket.roundTrip, 50), roundTripP99Milliseconds: ms(bucket.roundTrip, 99),
                timelineP50Milliseconds: ms(bucket.timeline, 50), timelineP99Milliseconds: ms(bucket.timeline, 99),
                timelineMaxMilliseconds: bucket.timeline.totalCount == 0 ? nil : Double(bucket.timeline.max) / 1_000)
        }
        return StepReport(
            mode: mode, offeredRate: offered, inFlight: inFlight, durationSeconds: step.duration.asSeconds,
            scheduled: step.scheduled, sent: step.records.count, replies: replies, achievedRate: Double(step.records.count) / sendWindow,
            completedRate: Double(replies - errors.values.reduce(0, +)) / sendWindow,
            errors: errors, timeouts: timeouts, unchanged: unchanged, timelines: timelines,
            roundTrip: LatencySummary(roundTrip), intentToTimeline: LatencySummary(toTimeline),
            sendLag: LatencySummary(sendLag),
            widgets: Dictionary(
                uniqueKeysWithValues: perWidget.map { widget, figures in
                    (
                        widget.rawValue,
                        WidgetFigures(
                            sent: figures.sent, errors: figures.errors,
                            roundTripP99Milliseconds: ms(figures.roundTrip, 99) ?? 0,
                            timelineP50Milliseconds: ms(figures.timeline, 50) ?? 0,
                            timelineP99Milliseconds: ms(figures.timeline, 99) ?? 0)
                    )
                }),
            overTime: overTime,
            recovery: recovery.map { StepReport.Recovery($0, after: step.loadDuration.asSeconds, overTime: overTime) },
            percentiles: StepReport.Curves(roundTrip: curve(roundTrip), intentToTimeline: curve(toTimeline)))
    }

    /// The percentile curve HdrHistogram plots: percentiles closing in on 100 % by halves, as far
    /// as the sample count supports, and the maximum.
    static func curve(_ histogram: Histogram<UInt64>) -> [PercentilePoint] {
        guard histogram.totalCount > 0 else { return [] }
        var points: [PercentilePoint] = []
        var percentile = 0.0
        var step = 10.0
        while 100 * (1 - percentile / 100) * Double(histogram.totalCount) / 100 >= 1, percentile < 100 {
            points.append(PercentilePoint(percentile: percentile, milliseconds: Double(histogram.valueAtPercentile(percentile)) / 1_000))
            if 100 - percentile <= step * 2 { step /= 2 }
            percentile += step
        }
        points.append(PercentilePoint(percentile: 100, milliseconds: Double(histogram.max) / 1_000))
        return points
    }
}

/// The whole run, as `--json` writes it.
struct LoadTestReport: Codable, Sendable {
    struct Configuration: Codable, Sendable {
        var mode: String
        var offeredRate: Double?
        var inFlight: Int?
        var durationSeconds: Double
        var users: Int
        /// Each widget's share of the intents, in percent.
        var mix: [String: Double]
        var graceSeconds: Double
        var timeoutMilliseconds: Int
        var seed: UInt64
        var intentsEndpoint: String
        var timelineEventsEndpoint: String
    }

    struct Search: Codable, Sendable {
        var targetP99Milliseconds: Double
        /// The highest offered rate that met the target (p99 under it, nothing missing, no errors,
        /// achieved ≥ 97 % of offered); nil when none did.
        var highestPassingRate: Double?
        var lowestFailingRate: Double?
        var resolution: Double
    }

    var startedAt: Date
    var configuration: Configuration
    /// Messages sent before the measurement to give every user state in all five apps.
    var setupMessages: Int
    var setupSeconds: Double
    var steps: [StepReport]
    var search: Search?
}

// MARK: - Printing

enum LoadTestTable {
    static func printStep(_ step: StepReport, mixSummary: String, grace: Double) {
        let widths = [9, 9, 9, 9, 9, 9]
        Console.line("".padded(toWidth: 22) + String.tableRow(["count", "p50", "p90", "p99", "p99.9", "max", "   ms"], widths: widths, alignedRight: true))
        for (name, summary) in [("intent round trip", step.roundTrip), ("intent → timeline", step.intentToTimeline)] {
            let figures = [summary.p50Milliseconds, summary.p90Milliseconds, summary.p99Milliseconds, summary.p999Milliseconds, summary.maxMilliseconds]
            Console.line(name.padded(toWidth: 22) + String.tableRow(["\(summary.count)"] + figures.map(milliseconds), widths: widths, alignedRight: true))
        }
        let offered = step.offeredRate.map { String(format: " of %.0f/s offered", $0) } ?? ""
        let scheduled = step.scheduled.map { $0 > step.sent ? " of \($0) scheduled (every user was waiting for a reply)" : "" } ?? ""
        Console.line(
            String(format: "sent %d%@ (%.0f/s%@), %d replies (%.0f/s ok), ", step.sent, scheduled, step.achievedRate, offered, step.replies, step.completedRate)
                + "errors \(step.errorCount)\(errorDetail(step.errors)), timed out \(step.timeouts), unchanged \(step.unchanged)")
        let timelines = step.timelines
        Console.line(
            "timelines: \(timelines.expected) expected, \(timelines.delivered) delivered (\(timelines.exact) by their own causedBy, "
                + "\(timelines.coalesced) coalesced into a later one), \(timelines.missing) missing after the \(grace) s grace period")
        if let recovery = step.recovery {
            Console.line(
                String(format: "recovery at %.0f/s from %.0f s: ", recovery.rate, recovery.fromSeconds)
                    + (recovery.recoveredAfterSeconds.map {
                        String(format: "every second's p99 under %g ms from %.0f s after the switch on", recovery.targetP99Milliseconds, $0)
                    } ?? String(format: "p99 still at or over %g ms at the end", recovery.targetP99Milliseconds)))
        }
        if step.mode == "open" {
            Console.line(String(format: "sender behind schedule: p99 %.3f ms, max %.3f ms", step.sendLag.p99Milliseconds, step.sendLag.maxMilliseconds))
        }
        let widgets = step.widgets.sorted { $0.value.sent > $1.value.sent }.map { name, figures in
            String(format: "%@ %d (→ timeline p99 %.2f ms)", name, figures.sent, figures.timelineP99Milliseconds)
        }
        Console.line("per widget: " + widgets.joined(separator: ", "))
        if let usage = step.serviceCPU, !usage.isEmpty {
            let services = usage.sorted { $0.key < $1.key }.map { String(format: "%@ %.3f", $0.key, $0.value.millisecondsPerIntent) }
            let total = usage.values.map(\.millisecondsPerIntent).reduce(0, +)
            Console.line("service CPU, ms per intent: " + services.joined(separator: ", ") + String(format: "; %.3f in all", total))
        }
        if let lag = step.snapshotFileLag {
            let bound = { (seconds: Double?) in seconds.map { String(format: "≤ %g s", $0) } ?? "> 10 s" }
            let caughtUp = lag.caughtUp ? String(format: "caught up %.1f s after the timelines", lag.catchUpSeconds) : "not caught up when read"
            if let within = lag.withinOneSecond {
                Console.line(
                    String(format: "snapshot files: %d written, %.1f %% within 1 s, p50 %@, p99 %@; ", lag.files, within * 100, bound(lag.p50AtMostSeconds), bound(lag.p99AtMostSeconds))
                        + caughtUp)
            } else {
                Console.line("snapshot files: none written; " + caughtUp)
            }
        }
    }

    private static let searchWidths = [11, 12, 10, 10, 11, 9, 9, 8]

    static func searchHeader() {
        Console.line(
            String.tableRow(
                ["offered/s", "achieved/s", "→tl p50", "→tl p99", "→tl p99.9", "rt p99", "missing", "errors", "  result"],
                widths: searchWidths, alignedRight: true))
    }

    static func searchLine(_ step: StepReport) {
        let latencies = [step.intentToTimeline.p50Milliseconds, step.intentToTimeline.p99Milliseconds, step.intentToTimeline.p999Milliseconds, step.roundTrip.p99Milliseconds]
        let cells = [String(format: "%.0f", step.offeredRate ?? 0), String(format: "%.0f", step.achievedRate)]
            + latencies.map { String(format: "%.2f", $0) }
            + ["\(step.timelines.missing)", "\(step.errorCount + step.timeouts)", "  " + ((step.passed ?? false) ? "pass" : "fail")]
        Console.line(String.tableRow(cells, widths: searchWidths, alignedRight: true))
    }

    private static func errorDetail(_ errors: [String: Int]) -> String {
        errors.isEmpty ? "" : " (" + errors.sorted { $0.value > $1.value }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") + ")"
    }

    /// Three significant digits or more, as HdrHistogram keeps them.
    private static func milliseconds(_ value: Double) -> String {
        String(format: value < 10 ? "%.3f" : value < 100 ? "%.2f" : "%.1f", value)
    }
}
