import ArgumentParser
import Foundation
import WidgetBusProtocol
import WidgetDomain

/// `widgetctl push-token register|remove`: what an app sends when its widget extension gets a
/// WidgetKit push token, or stops using one.
struct PushTokenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "push-token",
        abstract: "Register or remove a user's widget push token and print their tokens as JSON.",
        subcommands: [Register.self, Remove.self]
    )

    struct Register: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Register a device's widget push token (RegisterWidgetPushToken).")

        @Option(help: "The user the token's device is signed in as.")
        var user: String

        @Option(help: "The token as hex (WidgetPushInfo.token).")
        var token: String

        @Option(help: "The APNs environment of the build that got the token: sandbox or production.")
        var environment: String = APNsEnvironment.sandbox.rawValue

        @Option(
            name: .customLong("kind"),
            help: "A widget kind on the device the token wakes; repeat for more (default: every kind).")
        var kinds: [String] = []

        @Option(help: "The device's previous token, removed in the same change.")
        var replaces: String?

        @OptionGroup var options: RequestOptions

        func run() throws {
            let body = RegisterWidgetPushTokenBody(
                token: token, environment: environment, kinds: kinds.isEmpty ? WidgetKind.allCases.map(\.rawValue) : kinds,
                replaces: replaces)
            try PushTokenCommand.send(Envelope(type: MessageType.registerWidgetPushToken.rawValue, user: user, body: body), options: options)
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Stop pushing to a widget push token (RemoveWidgetPushToken).")

        @Option(help: "The user who has the token.")
        var user: String

        @Option(help: "The token as hex.")
        var token: String

        @OptionGroup var options: RequestOptions

        func run() throws {
            try PushTokenCommand.send(Envelope(type: MessageType.removeWidgetPushToken.rawValue, user: user, body: RemoveWidgetPushTokenBody(token: token)), options: options)
        }
    }

    fileprivate static func send(_ envelope: Envelope<some Encodable & Sendable>, options: RequestOptions) throws {
        let codec = WireCodec()
        try reportingFailures {
            let reply = try options.send(envelope, to: BusEndpoint.intents.resolve(in: ProcessInfo.processInfo.environment), codec: codec)
            try printBody(of: reply, as: UserPushTokens.self, codec: codec)
        }
    }
}
