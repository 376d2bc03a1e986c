import ArgumentParser
import Foundation
import Histogram
import ServiceSupport
import Synchronization
import WidgetBusProtocol
import ZeroMQ

/// Measures intent round trips through a running intent-handler next to a raw libzmq REQ/REP
/// round trip of the same message size, in the same run, so the figures are comparable on a
/// noisy machine.
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Benchmark intent round trips against a raw libzmq REQ/REP baseline."
    )

    @Option(help: "Round trips per measurement.")
    var requests: Int = 10_000

    @Option(help: "Rounds; each runs the baseline then the intents, and the median round is reported.")
    var rounds: Int = 3

    @Option(help: "Distinct users the intents are spread over.")
    var users: Int = 100

    @Option(help: "Write the results as JSON to this file.")
    var json: String?

    struct Measurement: Codable {
        var name: String
        var requests: Int
        var payloadBytes: Int
        var seconds: Double
        var perSecond: Double
        var p50Microseconds: UInt64
        var p99Microseconds: UInt64
        var p999Microseconds: UInt64
        var errors: Int
    }

    func run() throws {
        let codec = WireCodec()
        let endpoint = BusEndpoint.intents.resolve(in: ProcessInfo.processInfo.environment)
        let runID = String(UUID().uuidString.prefix(8)).lowercased()
        let payloadBytes = try intentPayload(codec: codec, runID: runID, round: 0, index: 0).count

        var baselines: [Measurement] = []
        var intents: [Measurement] = []
        for round in 1...rounds {
            baselines.append(try measureRawBaseline(payloadBytes: payloadBytes))
            intents.append(try measureIntents(endpoint: endpoint, codec: codec, runID: runID, round: round))
            printLine("round \(round): raw \(Int(baselines.last!.perSecond))/s, intents \(Int(intents.last!.perSecond))/s")
        }
        let baseline = median(baselines)
        let intent = median(intents)
        printLine("")
        printLine(pad("measurement", 24) + pad("round trips/s", 15) + pad("p50 µs", 9) + pad("p99 µs", 9) + pad("p99.9 µs", 10) + "errors")
        for measurement in [baseline, intent] {
            printLine(
                pad(measurement.name, 24) + pad("\(Int(measurement.perSecond))", 15) + pad("\(measurement.p50Microseconds)", 9)
                    + pad("\(measurement.p99Microseconds)", 9) + pad("\(measurement.p999Microseconds)", 10) + "\(measurement.errors)")
        }
        printLine(String(format: "intent rate / raw rate = %.2f (payload %d bytes, median of %d rounds)",
                         intent.perSecond / baseline.perSecond, payloadBytes, rounds))
        if let json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(["baseline": baselines, "intents": intents]).write(to: URL(fileURLWithPath: json))
        }
        if intent.errors > 0 { throw ExitCode(1) }
    }

    private func intentPayload(codec: WireCodec, runID: String, round: Int, index: Int) throws -> Data {
        let envelope = Envelope(
            id: "bench-\(runID)-\(round)-\(index)", type: MessageType.recordTension.rawValue,
            user: "bench-user-\(index % max(1, users))", body: RecordTensionBody(level: 3))
        return try codec.encode(envelope)
    }

    private func measureIntents(endpoint: String, codec: WireCodec, runID: String, round: Int) throws -> Measurement {
        let client = RequestClient(context: try ZMQContextHolder.shared, endpoint: endpoint, timeoutMilliseconds: 5_000, attempts: 1)
        var errors = 0
        return try measure(name: "intent round trip", payloadBytes: 0) { index in
            let reply = try client.request(try intentPayload(codec: codec, runID: runID, round: round, index: index))
            if case .failure = try ReplyDecoding.decode(reply, as: StateRecord.self, codec: codec) { errors += 1 }
        } errors: { errors }
    }

    /// A REP echo server on its own thread and context, and a REQ client here.
    private func measureRawBaseline(payloadBytes: Int) throws -> Measurement {
        let serverContext = try ZMQContext()
        let bound = Mutex<String?>(nil)
        let ready = DispatchSemaphore(value: 0)
        let server = Thread {
            do {
                let socket = try ZMQSocket(context: serverContext, type: .rep)
                defer { socket.close() }
                try socket.setLinger(milliseconds: 0)
                try socket.bind("tcp://127.0.0.1:*")
                let endpoint = try socket.lastEndpoint
                bound.withLock { $0 = endpoint }
                ready.signal()
                while let frames = try socket.receiveMessage() {
                    try socket.send(frames)
                }
            } catch {
                ready.signal()
            }
        }
        server.start()
        ready.wait()
        defer {
            serverContext.shutdown()
            serverContext.terminate()
        }
        guard let endpoint = bound.withLock({ $0 }) else { throw ValidationError("raw baseline server failed to bind") }
        let client = RequestClient(context: try ZMQContextHolder.shared, endpoint: endpoint, timeoutMilliseconds: 5_000, attempts: 1)
        let payload = Data(repeating: 0x61, count: payloadBytes)
        return try measure(name: "raw libzmq REQ/REP", payloadBytes: payloadBytes) { _ in
            _ = try client.request(payload)
        } errors: { 0 }
    }

    private func measure(
        name: String, payloadBytes: Int, _ roundTrip: (Int) throws -> Void, errors: () -> Int
    ) throws -> Measurement {
        for index in 0..<min(1_000, requests / 10) { try roundTrip(-1 - index) }  // warm-up
        var histogram = Histogram<UInt64>(highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: .three)
        let clock = ContinuousClock()
        let started = clock.now
        for index in 0..<requests {
            let sent = clock.now
            try roundTrip(index)
            let elapsed = clock.now - sent
            _ = histogram.record(UInt64(elapsed.components.attoseconds / 1_000_000_000_000) + UInt64(elapsed.components.seconds) * 1_000_000)
        }
        let seconds = Double((clock.now - started).components.attoseconds) / 1e18 + Double((clock.now - started).components.seconds)
        return Measurement(
            name: name, requests: requests, payloadBytes: payloadBytes, seconds: seconds,
            perSecond: Double(requests) / seconds, p50Microseconds: histogram.valueAtPercentile(50),
            p99Microseconds: histogram.valueAtPercentile(99), p999Microseconds: histogram.valueAtPercentile(99.9),
            errors: errors())
    }

    private func median(_ measurements: [Measurement]) -> Measurement {
        measurements.sorted { $0.perSecond < $1.perSecond }[measurements.count / 2]
    }

    private func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }
}
