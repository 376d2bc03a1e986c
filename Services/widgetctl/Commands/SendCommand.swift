import ArgumentParser
import Foundation
import ServiceSupport
import WidgetBusProtocol

struct SendCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send",
        abstract: "Send an intent or app message to intent-handler and print the reply.",
        discussion: "Message types: " + MessageType.allCases.filter(\.isIntent).map(\.rawValue).joined(separator: ", ")
    )

    @Argument(help: "The message type, e.g. RecordTensionIntent.")
    var type: String

    @Option(help: "The user the message is for.")
    var user: String

    @Option(help: "The message body as JSON, e.g. '{\"level\":7}'.")
    var body: String = "{}"

    @Option(help: "The message id (default: a new UUID). Reusing an id retries that message.")
    var id: String = UUID().uuidString.lowercased()

    @Option(
        help: """
            After the reply, print this widget kind's timeline (e.g. TensionCheckWidget) as of the change: \
            it asks timeline-service with the reply's `version` as its minimum version, so it never shows \
            the widget from before the change.
            """)
    var timeline: String?

    @OptionGroup var options: RequestOptions

    func run() throws {
        let codec = WireCodec()
        let bodyValue: JSONValue
        do {
            bodyValue = try codec.decode(JSONValue.self, from: Data(body.utf8))
        } catch {
            throw ValidationError("--body is not valid JSON: \(error)")
        }
        try reportingFailures {
            let envelope = Envelope(id: id, type: type, user: user, body: bodyValue)
            let reply = try options.send(envelope, to: BusEndpoint.intents.resolve(in: ProcessInfo.processInfo.environment), codec: codec)
            Console.line(String(decoding: reply, as: UTF8.self))
            if case .failure(let error) = try ReplyDecoding.decode(reply, as: JSONValue.self, codec: codec) {
                throw RequestFailure.errorReply(error)
            }
            if let timeline {
                // A reply without a version (AppForeground's) changed nothing a timeline shows.
                let version = JSONFieldScanner(reply).object("body")?.unsignedInteger("version")
                let timelineReply = try options.requestTimeline(of: timeline, user: user, minimumVersion: version, codec: codec)
                try printBody(of: timelineReply, as: JSONValue.self, codec: codec)
            }
        }
    }
}

extension MessageType {
    /// Whether `widgetctl send` is the way to send this type.
    var isIntent: Bool {
        rawValue.hasSuffix("Intent")
    }
}
