import ArgumentParser
import Foundation
import ServiceSupport
import WidgetBusProtocol
import WidgetDomain

struct TimelineCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "timeline",
        abstract: "Print a user's current timeline of a widget kind as JSON.",
        discussion: "Widget kinds: " + WidgetKind.allCases.map(\.rawValue).joined(separator: ", ")
    )

    @Argument(help: "The widget kind, e.g. TensionCheckWidget.")
    var kind: String

    @Option(help: "The user whose timeline to print.")
    var user: String

    @OptionGroup var options: RequestOptions

    func run() throws {
        let codec = WireCodec()
        try reportingFailures {
            let envelope = Envelope(
                type: MessageType.timelineRequest.rawValue, user: user, body: JSONValue.object(["kind": .string(kind)]))
            let reply = try options.send(envelope, to: BusEndpoint.timelines.resolve(in: ProcessInfo.processInfo.environment), codec: codec)
            try printBody(of: reply, as: JSONValue.self, codec: codec)
        }
    }
}
