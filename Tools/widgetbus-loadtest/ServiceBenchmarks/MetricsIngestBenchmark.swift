import ArgumentParser
import BusRuntime
import CommandLineText
import Foundation
import Histogram
import ServiceSupport
import Synchronization
import WidgetBusProtocol
import WidgetDomain
import ZeroMQ

/// Measures sustained ingestion through a running metrics-ingest — single-sample messages and
/// batches — next to a raw libzmq PUSH/PULL of the same message sizes, in the same run, so the
/// figures are comparable on a noisy machine.
///
/// Throughput: every message is pushed as fast as metrics-ingest takes it (PUSH blocks at the
/// high-water mark, so the rate is the service's), and the run ends when `MetricsStatusRequest`
/// counts every sample as handled. Latency: each message from its push to the first
/// `MetricsChanged` it caused. Under full load that is mostly time spent queued in the sockets
/// (about two high-water marks deep); the "one at a time" measurement pushes the next sample only
/// after the previous one's event arrived, which is the latency of the service itself.
struct MetricsIngestBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "metrics-ingest",
        abstract: "Benchmark sample ingestion (single and batched) against a raw libzmq PUSH/PULL baseline."
    )

    @Option(help: "Samples per measurement.")
    var samples: Int = 50_000

    @Option(help: "Samples per MetricBatch in the batched measurement.")
    var batchSize: Int = 500

    @Option(help: "Rounds; each runs every measurement once, and the median round is reported.")
    var rounds: Int = 3

    @Option(help: "Distinct users the samples are spread over.")
    var users: Int = 100

    @Option(help: "Samples pushed one at a time (each after the previous one's event) for the latency measurement.")
    var pacedSamples: Int = 2_000

    @Option(help: "Write the results as JSON to this file.")
    var json: String?

    struct Measurement: Codable {
        var name: String
        var messages: Int
        var samples: Int
        var payloadBytes: Int
        var seconds: Double
        var messagesPerSecond: Double
        var samplesPerSecond: Double
        /// Push → first `MetricsChanged` of the message; absent for the raw baselines.
        var p50Microseconds: UInt64?
        var p99Microseconds: UInt64?
        var p999Microseconds: UInt64?
    }

    func validate() throws {
        guard samples > 0, rounds > 0, users > 0, pacedSamples > 0, (1...ProtocolLimits.maxBatchSamples).contains(batchSize) else {
            throw ValidationError(
                "--samples, --rounds, --users and --paced-samples must be positive; --batch-size within 1–\(ProtocolLimits.maxBatchSamples)")
        }
    }

    func run() throws {
        let environment = ProcessInfo.processInfo.environment
        let codec = WireCodec()
        let workload = Workload(
            runID: String(UUID().uuidString.prefix(8)).lowercased(), users: users, start: Date().addingTimeInterval(-60))
        let status = StatusReader(endpoint: BusEndpoint.metricsSnapshot.resolve(in: environment), codec: codec)
        _ = try status.handled()  // fails early when metrics-ingest is not running

        var results: [String: [Measurement]] = [:]
        for round in 1...rounds {
            let single = try workload.messages(samples: samples, perMessage: 1, round: round, codec: codec)
            let batched = try workload.messages(samples: samples, perMessage: batchSize, round: round, codec: codec)
            let paced = try workload.messages(samples: pacedSamples, perMessage: 1, round: round, codec: codec, offset: 2 * samples)
            let measured = [
                try measureRaw(name: "raw PUSH/PULL, single size", like: single),
                try measureIngest(name: "ingest, single samples", single, status: status, environment: environment),
                try measureRaw(name: "raw PUSH/PULL, batch size", like: batched),
                try measureIngest(name: "ingest, batches of \(batchSize)", batched, status: status, environment: environment),
                try measurePaced(name: "ingest, one at a time", paced, environment: environment),
            ]
            for measurement in measured { results[measurement.name, default: []].append(measurement) }
            Console.line("round \(round): " + measured.map { "\($0.name) \(Int($0.samplesPerSecond)) samples/s" }.joined(separator: ", "))
        }

        let order = [
            "raw PUSH/PULL, single size", "ingest, single samples", "raw PUSH/PULL, batch size", "ingest, batches of \(batchSize)",
            "ingest, one at a time",
        ]
        let medians = order.map { name in results[name]!.sorted { $0.samplesPerSecond < $1.samplesPerSecond }[rounds / 2] }
        Console.line("")
        func row(_ cells: [String]) -> String { String.tableRow(cells, widths: [30, 11, 11, 12, 10, 10]) }
        func microseconds(_ value: UInt64?) -> String { value.map { "\($0)" } ?? "-" }
        Console.line(row(["measurement", "bytes/msg", "msgs/s", "samples/s", "p50 µs", "p99 µs", "p99.9 µs"]))
        for m in medians {
            Console.line(row([
                m.name, "\(m.payloadBytes)", "\(Int(m.messagesPerSecond))", "\(Int(m.samplesPerSecond))",
                microseconds(m.p50Microseconds), microseconds(m.p99Microseconds), microseconds(m.p999Microseconds),
            ]))
        }
        Console.line(String(
            format: "single: ingest / raw messages = %.3f; batched: ingest / raw messages = %.3f (median of %d rounds, %d samples each, %d users)",
            medians[1].messagesPerSecond / medians[0].messagesPerSecond, medians[3].messagesPerSecond / medians[2].messagesPerSecond,
            rounds, samples, users))
        if let json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(results).write(to: URL(fileURLWithPath: json))
        }
    }

    // MARK: - Measurements

    private func measureIngest(
        name: String, _ messages: [(id: String, payload: Data)], status: StatusReader, environment: [String: String]
    ) throws -> Measurement {
        let sampleCount = samples
        let before = try status.handled()
        let watcher = try MetricsEventWatcher(endpoint: BusEndpoint.metricsEvents.resolve(in: environment))
        let pusher = try MetricsPusher(endpoint: BusEndpoint.metrics.resolve(in: environment), timeoutMilliseconds: 30_000, security: nil)
        let clock = ContinuousClock()
        var sent: [(id: String, at: ContinuousClock.Instant)] = []
        sent.reserveCapacity(messages.count)
        let started = clock.now
        for message in messages {
            try pusher.push(message.payload)
            sent.append((message.id, clock.now))
        }
        let deadline = clock.now + .seconds(300)
        while try status.handled() < before + UInt64(sampleCount) {
            guard clock.now < deadline else { throw ValidationError("metrics-ingest did not handle \(sampleCount) samples in 300 s") }
            usleep(5_000)
        }
        let seconds = (clock.now - started).asSeconds
        pusher.finish()
        let arrivals = watcher.stop()
        var histogram = Histogram<UInt64>.latencyMicroseconds()
        for message in sent {
            guard let arrived = arrivals[message.id] else { continue }
            _ = histogram.record((arrived - message.at).asMicroseconds)
        }
        return Measurement(
            name: name, messages: messages.count, samples: sampleCount, payloadBytes: messages[0].payload.count, seconds: seconds,
            messagesPerSecond: Double(messages.count) / seconds, samplesPerSecond: Double(sampleCount) / seconds,
            p50Microseconds: histogram.valueAtPercentile(50), p99Microseconds: histogram.valueAtPercentile(99),
            p999Microseconds: histogram.valueAtPercentile(99.9))
    }

    /// Pushes each sample only after the previous one's `MetricsChanged` arrived: latency
    /// without queueing.
    private func measurePaced(
        name: String, _ messages: [(id: String, payload: Data)], environment: [String: String]
    ) throws -> Measurement {
        let watcher = try MetricsEventWatcher(endpoint: BusEndpoint.metricsEvents.resolve(in: environment))
        let pusher = try MetricsPusher(endpoint: BusEndpoint.metrics.resolve(in: environment), timeoutMilliseconds: 30_000, security: nil)
        defer { pusher.finish() }
        let clock = ContinuousClock()
        var histogram = Histogram<UInt64>.latencyMicroseconds()
        let started = clock.now
        for message in messages {
            let sent = clock.now
            try pusher.push(message.payload)
            guard let arrived = watcher.waitForEvent(causedBy: message.id, timeout: .seconds(10)) else {
                throw ValidationError("no MetricsChanged for message \(message.id) within 10 s")
            }
            _ = histogram.record((arrived - sent).asMicroseconds)
        }
        let seconds = (clock.now - started).asSeconds
        _ = watcher.stop()
        return Measurement(
            name: name, messages: messages.count, samples: messages.count, payloadBytes: messages[0].payload.count,
            seconds: seconds, messagesPerSecond: Double(messages.count) / seconds, samplesPerSecond: Double(messages.count) / seconds,
            p50Microseconds: histogram.valueAtPercentile(50), p99Microseconds: histogram.valueAtPercentile(99),
            p999Microseconds: histogram.valueAtPercentile(99.9))
    }

    /// A PULL receiver on its own thread and context, and a PUSH sender here, moving as many
    /// messages of the same size as the ingest measurement it stands beside.
    private func measureRaw(name: String, like messages: [(id: String, payload: Data)]) throws -> Measurement {
        let count = messages.count
        let payloadBytes = messages[0].payload.count
        let serverContext = try ZMQContext()
        let bound = Mutex<String?>(nil)
        let ready = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let receiver = Thread {
            do {
                let socket = try ZMQSocket(context: serverContext, type: .pull)
                defer { socket.close() }
                try socket.setLinger(milliseconds: 0)
                try socket.bind("tcp://127.0.0.1:*")
                bound.withLock { $0 = try? socket.lastEndpoint }
                ready.signal()
                var received = 0
                while received < count, try socket.receiveMessage() != nil { received += 1 }
            } catch {
                ready.signal()
            }
            done.signal()
        }
        receiver.start()
        ready.wait()
        defer { serverContext.terminate() }
        guard let endpoint = bound.withLock({ $0 }) else { throw ValidationError("raw baseline receiver failed to bind") }
        let pusher = try MetricsPusher(endpoint: endpoint, timeoutMilliseconds: 30_000, security: nil)
        defer { pusher.finish() }
        let payload = Data(repeating: 0x61, count: payloadBytes)
        let clock = ContinuousClock()
        let started = clock.now
        for _ in 0..<count { try pusher.push(payload) }
        done.wait()
        let seconds = (clock.now - started).asSeconds
        return Measurement(
            name: name, messages: count, samples: samples, payloadBytes: payloadBytes, seconds: seconds,
            messagesPerSecond: Double(count) / seconds, samplesPerSecond: Double(samples) / seconds)
    }
}

/// The samples a run pushes: HRV readings spread over the users, every one with its own
/// `takenAt` (1 ms apart, going back from the run's start), so none is a duplicate and each
/// changes its user's aggregate.
private struct Workload {
    let runID: String
    let users: Int
    let start: Date

    /// `samples` samples in messages of `perMessage` (`MetricSample` when 1, else `MetricBatch`);
    /// `offset` moves their times clear of another set's of the same round.
    func messages(samples: Int, perMessage: Int, round: Int, codec: WireCodec, offset extra: Int = 0) throws
        -> [(id: String, payload: Data)]
    {
        let offset = round * 10_000_000 + (perMessage == 1 ? 0 : samples) + extra
        let all = (0..<samples).map { index in
            MetricSample(
                user: "bench-\(runID)-\(index % users)", takenAt: start.addingTimeInterval(-Double(offset + index) / 1000),
                source: "bench", reading: .hrv(milliseconds: Double(30 + index % 50), measure: .rmssd))
        }
        if perMessage == 1 {
            return try all.map { sample in
                let envelope = Envelope(type: MessageType.metricSample.rawValue, body: sample)
                return (envelope.id, try codec.encode(envelope))
            }
        }
        return try stride(from: 0, to: samples, by: perMessage).map { first in
            let envelope = Envelope(
                type: MessageType.metricBatch.rawValue, body: MetricBatchBody(samples: Array(all[first..<min(first + perMessage, samples)])))
            return (envelope.id, try codec.encode(envelope))
        }
    }
}

/// Reads how many samples metrics-ingest has handled (accepted, duplicate or refused).
private struct StatusReader {
    let endpoint: String
    let codec: WireCodec

    func handled() throws -> UInt64 {
        let client = RequestClient(context: try ZMQContextHolder.shared, endpoint: endpoint, timeoutMilliseconds: 5_000, attempts: 1, security: nil)
        let envelope = Envelope(type: MessageType.metricsStatusRequest.rawValue, body: EmptyBody())
        guard case .success(let reply) = try ReplyDecoding.decode(try client.request(try codec.encode(envelope)), as: MetricsStatusBody.self, codec: codec)
        else { throw ValidationError("metrics-ingest answered MetricsStatusRequest with an error") }
        return reply.body.accepted + reply.body.duplicates + reply.body.rejected
    }
}

/// Records, on a bus of its own thread, when the first `MetricsChanged` of each pushed message
/// arrives. It finds `causedBy` by its bytes (the wire's keys are sorted, so the field is always
/// written `"causedBy":"<id>"`) rather than decoding every aggregate, to stay cheap beside the
/// service it measures.
private final class MetricsEventWatcher: Sendable {
    private let arrivals = Mutex<[String: ContinuousClock.Instant]>([:])
    private let connected = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let stopSignal = StopSignal()

    /// Starts watching and returns once the subscription is live (a heartbeat came through).
    init(endpoint: String) throws {
        let thread = Thread { [self] in
            watch(endpoint)
            finished.signal()
        }
        thread.name = "metrics-event-watcher"
        thread.start()
        guard connected.wait(timeout: .now() + 5) == .success else {
            throw ValidationError("no heartbeat from metrics-ingest's publisher at \(endpoint) within 5 s")
        }
    }

    /// When the first event of message `id` arrived, waiting for it at most `timeout`.
    func waitForEvent(causedBy id: String, timeout: Duration) -> ContinuousClock.Instant? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let arrived = arrivals.withLock({ $0[id] }) { return arrived }
            usleep(20)
        }
        return nil
    }

    func stop() -> [String: ContinuousClock.Instant] {
        stopSignal.request()
        finished.wait()
        return arrivals.withLock { $0 }
    }

    private func watch(_ endpoint: String) {
        let marker = Data(#""causedBy":""#.utf8)
        do {
            let bus = try Bus()
            defer { bus.close() }
            var live = false
            try bus.subscribe(to: endpoint, topics: [Topic.metricsPrefix, Topic.heartbeat]) { [self] frames in
                let at = ContinuousClock.now
                if !live {
                    live = true
                    connected.signal()
                }
                guard frames.count == 2, let start = frames[1].range(of: marker)?.upperBound,
                    let end = frames[1][start...].firstIndex(of: UInt8(ascii: "\""))
                else { return }
                let id = String(decoding: frames[1][start..<end], as: UTF8.self)
                arrivals.withLock { if $0[id] == nil { $0[id] = at } }
            }
            try bus.run(until: stopSignal)
        } catch {
            connected.signal()
        }
    }
}
