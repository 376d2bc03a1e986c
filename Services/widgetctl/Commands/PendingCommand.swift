import ArgumentParser
import Foundation
import WidgetBusProtocol

struct PendingCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pending",
        abstract: "Print a user's records still waiting for sync, as JSON."
    )

    @Option(help: "The user whose pending records to print.")
    var user: String

    @OptionGroup var options: RequestOptions

    func run() throws {
        let codec = WireCodec()
        try reportingFailures {
            let envelope = Envelope(
                type: MessageType.pendingRecordsRequest.rawValue, user: user, body: JSONValue.object([:]))
            let reply = try options.send(envelope, to: BusEndpoint.intents.resolve(in: ProcessInfo.processInfo.environment), codec: codec)
            try printBody(of: reply, as: JSONValue.self, codec: codec)
        }
    }
}
