import ArgumentParser
import BusRuntime
import CommandLineText
import Foundation
import ServiceSupport
import WidgetBusProtocol

struct PingCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ping",
        abstract: "Check that a service answers; prints its round-trip time. For health checks."
    )

    enum ServiceName: String, ExpressibleByArgument, CaseIterable {
        case intentHandler = "intent-handler"
        case timelineService = "timeline-service"
        case syncAgent = "sync-agent"
        case metricsIngest = "metrics-ingest"

        var endpoint: BusEndpoint {
            switch self {
            case .intentHandler: .intents
            case .timelineService: .timelines
            case .syncAgent: .sync
            case .metricsIngest: .metricsSnapshot
            }
        }
    }

    @Argument(help: "The service: \(ServiceName.allCases.map(\.rawValue).joined(separator: ", ")).")
    var service: ServiceName

    @Flag(help: "Print {\"service\", \"endpoint\", \"milliseconds\"} as JSON instead of a sentence.")
    var json = false

    @OptionGroup var options: RequestOptions

    func run() throws {
        let codec = WireCodec()
        try reportingFailures {
            let started = ContinuousClock.now
            let envelope = Envelope(type: MessageType.ping.rawValue, body: JSONValue.object([:]))
            let endpoint = service.endpoint.resolve(in: ProcessInfo.processInfo.environment)
            let reply = try options.send(envelope, to: endpoint, codec: codec)
            if case .failure(let error) = try ReplyDecoding.decode(reply, as: EmptyBody.self, codec: codec) {
                throw RequestFailure.errorReply(error)
            }
            let elapsed = ContinuousClock.now - started
            if json {
                let summary = JSONValue.object([
                    "service": .string(service.rawValue), "endpoint": .string(endpoint), "milliseconds": .number(elapsed.asMilliseconds),
                ])
                Console.line(String(decoding: try codec.encode(summary), as: UTF8.self))
            } else {
                Console.line("\(service.rawValue) answered in \(elapsed)")
            }
        }
    }
}
