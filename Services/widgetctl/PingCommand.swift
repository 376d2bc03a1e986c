import ArgumentParser
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

    @OptionGroup var options: RequestOptions

    func run() throws {
        let codec = WireCodec()
        try reportingFailures {
            let started = ContinuousClock.now
            let envelope = Envelope(type: MessageType.ping.rawValue, body: JSONValue.object([:]))
            let reply = try options.send(envelope, to: service.endpoint.resolve(in: ProcessInfo.processInfo.environment), codec: codec)
            if case .failure(let error) = try ReplyDecoding.decode(reply, as: EmptyBody.self, codec: codec) {
                throw RequestFailure.errorReply(error)
            }
            printLine("\(service.rawValue) answered in \(ContinuousClock.now - started)")
        }
    }
}
