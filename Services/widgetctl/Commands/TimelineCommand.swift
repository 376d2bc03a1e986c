import ArgumentParser
import Foundation
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

    @Option(
        help: """
            Answer only once the timeline reflects every change up to this version: the `version` of a \
            StateReply or ProfileReply (read your own writes). timeline-service waits up to 1 s for it, \
            then answers `unavailable`.
            """)
    var minimumVersion: UInt64?

    @OptionGroup var options: RequestOptions

    func run() throws {
        let codec = WireCodec()
        try reportingFailures {
            let reply = try options.requestTimeline(of: kind, user: user, minimumVersion: minimumVersion, codec: codec)
            try printBody(of: reply, as: JSONValue.self, codec: codec)
        }
    }
}

extension RequestOptions {
    /// Asks timeline-service for `user`'s timeline of `kind`, at `minimumVersion` or later when given.
    func requestTimeline(of kind: String, user: String, minimumVersion: UInt64?, codec: WireCodec) throws -> Data {
        let envelope = Envelope(
            type: MessageType.timelineRequest.rawValue, user: user, body: Body(kind: kind, minimumVersion: minimumVersion))
        return try send(envelope, to: BusEndpoint.timelines.resolve(in: ProcessInfo.processInfo.environment), codec: codec)
    }
}

/// A `TimelineRequest` body with the kind as typed (timeline-service judges it) and the version
/// as an exact integer.
private struct Body: Encodable, Sendable {
    var kind: String
    var minimumVersion: UInt64?
}
