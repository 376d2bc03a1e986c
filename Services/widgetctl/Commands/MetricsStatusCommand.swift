import ArgumentParser
import Foundation
import WidgetBusProtocol

/// `widgetctl metrics-status`: what metrics-ingest did with everything pushed to it.
struct MetricsStatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "metrics-status",
        abstract: "Print metrics-ingest's counters as JSON: accepted, duplicates, rejected samples by reason, refused messages by code."
    )

    @OptionGroup var options: RequestOptions

    func run() throws {
        let codec = WireCodec()
        try reportingFailures {
            let envelope = Envelope(type: MessageType.metricsStatusRequest.rawValue, body: JSONValue.object([:]))
            let reply = try options.send(
                envelope, to: BusEndpoint.metricsSnapshot.resolve(in: ProcessInfo.processInfo.environment), codec: codec)
            try printBody(of: reply, as: MetricsStatusBody.self, codec: codec)
        }
    }
}
