import ArgumentParser
import BusRuntime
import CommandLineText
import Foundation
import WidgetBusProtocol

/// Measures intent round trips through a running intent-handler next to a raw libzmq round trip
/// of the same message size, in the same run, so the figures are comparable on a noisy machine:
/// one at a time (REQ/REP), or with many in flight (DEALER to ROUTER), where intent-handler
/// commits the requests queued together in one transaction.
struct IntentHandlerBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "intent-handler",
        abstract: "Benchmark intent round trips against a raw libzmq REQ/REP baseline."
    )

    @Option(help: "Round trips per measurement.")
    var requests: Int = 10_000

    @Option(help: "Rounds; each runs the baseline then the intents, and the median round is reported.")
    var rounds: Int = 3

    @Option(help: "Distinct users the intents are spread over.")
    var users: Int = 100

    @Option(help: "Requests in flight: 1 measures one round trip at a time; more, a pipelined stream.")
    var inFlight: Int = 1

    @Option(help: "Write the results as JSON to this file.")
    var json: String?

    func run() throws {
        let codec = WireCodec()
        let endpoint = BusEndpoint.intents.resolve(in: ProcessInfo.processInfo.environment)
        let runID = String(UUID().uuidString.prefix(8)).lowercased()
        let payloadBytes = try intentPayload(codec: codec, runID: runID, round: 0, index: 0).count

        var baselines: [RoundTripMeasurement] = []
        var intents: [RoundTripMeasurement] = []
        for round in 1...rounds {
            baselines.append(try .rawRequestReply(requests: requests, payloadBytes: payloadBytes, inFlight: inFlight))
            intents.append(try measureIntents(endpoint: endpoint, codec: codec, runID: runID, round: round))
            Console.line("round \(round): raw \(Int(baselines.last!.perSecond))/s, intents \(Int(intents.last!.perSecond))/s")
        }
        let baseline = RoundTripMeasurement.median(baselines)
        let intent = RoundTripMeasurement.median(intents)
        Console.line("")
        func row(_ cells: [String]) -> String { String.tableRow(cells, widths: [24, 15, 9, 9, 10]) }
        Console.line(row(["measurement", "round trips/s", "p50 µs", "p99 µs", "p99.9 µs", "errors"]))
        for m in [baseline, intent] {
            Console.line(row([
                m.name, "\(Int(m.perSecond))", "\(m.p50Microseconds)", "\(m.p99Microseconds)", "\(m.p999Microseconds)", "\(m.errors)",
            ]))
        }
        Console.line(String(format: "intent rate / raw rate = %.2f (payload %d bytes, %d in flight, median of %d rounds)",
                         intent.perSecond / baseline.perSecond, payloadBytes, inFlight, rounds))
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

    private func measureIntents(endpoint: String, codec: WireCodec, runID: String, round: Int) throws -> RoundTripMeasurement {
        var errors = 0
        func check(_ reply: Data) throws {
            if case .failure = try ReplyDecoding.decode(reply, as: StateRecord.self, codec: codec) { errors += 1 }
        }
        guard inFlight > 1 else {
            let client = RequestClient(
                context: try ZMQContextHolder.shared, endpoint: endpoint, timeoutMilliseconds: 5_000, attempts: 1, security: nil)
            return try .measure(name: "intent round trip", requests: requests, payloadBytes: 0) { index in
                try check(try client.request(try intentPayload(codec: codec, runID: runID, round: round, index: index)))
            } errors: { errors }
        }
        return try .pipelined(
            name: "intents, \(inFlight) in flight", requests: requests, window: inFlight, payloadBytes: 0,
            client: try PipelinedClient(context: try ZMQContextHolder.shared, endpoint: endpoint, security: nil)
        ) { try intentPayload(codec: codec, runID: runID, round: round, index: $0) } reply: { try check($0) } errors: { errors }
    }
}
