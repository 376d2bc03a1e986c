import ArgumentParser
import BusRuntime
import CommandLineText
import Foundation
import W3CTraceContext
import WidgetBusProtocol
import WidgetDomain

/// `widgetctl ingest hrv|stress|rr --user <id> …` pushes one sample; `widgetctl ingest --file
/// samples.jsonl` pushes a file of them (one sample JSON per line) in batches.
struct IngestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ingest",
        abstract: "Push samples to metrics-ingest: one with a subcommand, or a file of them with --file.",
        discussion: """
            PUSH has no reply: the command succeeds once metrics-ingest has taken the messages. Whether each \
            sample was accepted, a duplicate or refused shows in `widgetctl metrics-status`. Prints \
            {"endpoint", "messages", "samples", "ids", "traceId"} as JSON (every message in one trace). Exit status: 0 pushed, 1 a line of the file is \
            not JSON (skipped; the rest is pushed), 2 metrics-ingest did not take a message in time.
            """,
        subcommands: [HRV.self, Stress.self, RR.self]
    )

    @Option(help: "A file of samples, one JSON object per line (blank lines are skipped).")
    var file: String?

    @Option(help: "Samples per MetricBatch message when pushing a file (1–\(ProtocolLimits.maxBatchSamples)).")
    var batchSize: Int = 500

    @OptionGroup var push: PushOptions

    func validate() throws {
        guard (1...ProtocolLimits.maxBatchSamples).contains(batchSize) else {
            throw ValidationError("--batch-size must be within 1–\(ProtocolLimits.maxBatchSamples)")
        }
    }

    func run() throws {
        guard let file else { throw CleanExit.helpRequest(self) }
        let codec = WireCodec()
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
            throw ValidationError("cannot read \(file) as UTF-8 text")
        }
        var samples: [JSONValue] = []
        var skipped = 0
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            guard !line.allSatisfy(\.isWhitespace) else { continue }
            do {
                samples.append(try codec.decode(JSONValue.self, from: Data(line.utf8)))
            } catch {
                skipped += 1
                Console.error("\(file):\(number + 1) is not JSON; skipped")
            }
        }
        var messages: [Data] = []
        var ids: [String] = []
        let trace = TraceContext.start()
        for start in stride(from: 0, to: samples.count, by: batchSize) {
            let batch = Array(samples[start..<min(start + batchSize, samples.count)])
            var envelope = Envelope(type: MessageType.metricBatch.rawValue, body: JSONValue.object(["samples": .array(batch)]))
            envelope.trace = trace
            messages.append(try codec.encode(envelope))
            ids.append(envelope.id)
        }
        try push.send(messages, ids: ids, samples: samples.count, trace: trace, codec: codec)
        if skipped > 0 { throw ExitCode(1) }
    }

    /// What every sample subcommand shares: whose, when, from where.
    struct SampleOptions: ParsableArguments {
        @Option(help: "The user the sample is for.")
        var user: String

        @Option(help: "When it was taken, ISO-8601 (default: now).")
        var takenAt: String?

        @Option(help: "The device or gateway that measured it.")
        var source: String = "widgetctl"

        func sample(_ reading: MetricSample.Reading) throws -> MetricSample {
            var date = Date()
            if let takenAt {
                guard let parsed = WireDate.parse(takenAt) else { throw ValidationError("--taken-at is not an ISO-8601 date") }
                date = parsed
            }
            return MetricSample(user: user, takenAt: date, source: source, reading: reading)
        }
    }

    struct HRV: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Push one HRV sample.")

        @OptionGroup var sample: SampleOptions

        @Option(help: "HRV in milliseconds.")
        var ms: Double

        @Option(help: "rmssd or sdnn.")
        var measure: String = HRVMeasure.rmssd.rawValue

        @OptionGroup var push: PushOptions

        func run() throws {
            guard let measure = HRVMeasure(rawValue: measure) else { throw ValidationError("--measure must be rmssd or sdnn") }
            try push.send(try sample.sample(.hrv(milliseconds: ms, measure: measure)))
        }
    }

    struct Stress: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Push one stress score.")

        @OptionGroup var sample: SampleOptions

        @Option(help: "Stress score, 0–100.")
        var score: Double

        @OptionGroup var push: PushOptions

        func run() throws {
            try push.send(try sample.sample(.stress(score: score)))
        }
    }

    struct RR: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rr", abstract: "Push one recording of RR intervals; metrics-ingest derives RMSSD and SDNN.")

        @OptionGroup var sample: SampleOptions

        @Option(help: "RR intervals in ms, comma-separated, in recording order, e.g. 812,790,805.")
        var intervals: String

        @OptionGroup var push: PushOptions

        func run() throws {
            let values = intervals.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard !values.isEmpty, values.allSatisfy({ $0 != nil }) else {
                throw ValidationError("--intervals must be comma-separated numbers")
            }
            try push.send(try sample.sample(.rr(intervals: values.map { $0! })))
        }
    }
}

/// Where and how patiently to push.
struct PushOptions: ParsableArguments {
    @Option(help: "Milliseconds to wait for metrics-ingest to take each message.")
    var timeout: Int = 2_000

    func send(_ sample: MetricSample) throws {
        let codec = WireCodec()
        let trace = TraceContext.start()
        var envelope = Envelope(type: MessageType.metricSample.rawValue, body: sample)
        envelope.trace = trace
        try send([try codec.encode(envelope)], ids: [envelope.id], samples: 1, trace: trace, codec: codec)
    }

    /// Pushes `messages`, all in `trace` (one command, one trace), and prints the summary.
    func send(_ messages: [Data], ids: [String], samples: Int, trace: TraceContext, codec: WireCodec) throws {
        let endpoint = BusEndpoint.metrics.resolve(in: ProcessInfo.processInfo.environment)
        let pusher = try MetricsPusher(endpoint: endpoint, timeoutMilliseconds: timeout, security: try BusSecurity.Settings.ofThisProcess())
        defer { pusher.finish() }
        do {
            for message in messages { try pusher.push(message) }
        } catch let failure as MetricsPusher.NotDelivered {
            Console.error(failure.description)
            throw ExitCode(2)
        }
        let summary = JSONValue.object([
            "endpoint": .string(endpoint), "messages": .number(Double(messages.count)), "samples": .number(Double(samples)),
            "ids": .array(ids.map(JSONValue.string)), "traceId": .string("\(trace.traceID)"),
        ])
        Console.line(String(decoding: try codec.encode(summary), as: UTF8.self))
    }
}
