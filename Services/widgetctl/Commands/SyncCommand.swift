import ArgumentParser
import BusRuntime
import Foundation
import WidgetBusProtocol

/// `widgetctl sync --user <id>`: a sync pass now, through sync-agent.
struct SyncCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Run a sync pass for a user now and print its result as JSON.",
        discussion: "Exit status: 0 when every pending record reached the target, 1 when the result has failures (or on an error reply), 2 when sync-agent did not answer."
    )

    @Option(help: "The user whose pending records to sync.")
    var user: String

    @OptionGroup var options: SyncRequestOptions

    func run() throws {
        let codec = WireCodec()
        try reportingFailures {
            let envelope = Envelope(type: MessageType.syncRequest.rawValue, user: user, body: JSONValue.object([:]))
            let reply = try options.send(envelope, codec: codec)
            let result = try printBody(of: reply, as: SyncResult.self, codec: codec)
            if !result.failures.isEmpty { throw ExitCode(1) }
        }
    }
}

/// `widgetctl sync-status [--user <id>]`: the latest pass result per user.
struct SyncStatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync-status",
        abstract: "Print sync-agent's latest result per user (or of one user) as JSON."
    )

    @Option(help: "Only this user's latest result.")
    var user: String?

    @OptionGroup var options: SyncRequestOptions

    func run() throws {
        let codec = WireCodec()
        try reportingFailures {
            let envelope = Envelope(type: MessageType.syncStatusRequest.rawValue, user: user, body: JSONValue.object([:]))
            let reply = try options.send(envelope, codec: codec)
            try printBody(of: reply, as: SyncStatusBody.self, codec: codec)
        }
    }
}

/// Like ``RequestOptions`` but with a longer wait: a pass may take as long as the database
/// timeout when the target is down.
struct SyncRequestOptions: ParsableArguments {
    @Option(help: "Milliseconds to wait for each reply attempt.")
    var timeout: Int = 30_000

    @Option(help: "Attempts before giving up (a lost request is resent with the same id).")
    var attempts: Int = 2

    func send(_ envelope: Envelope<JSONValue>, codec: WireCodec) throws -> Data {
        let endpoint = BusEndpoint.sync.resolve(in: ProcessInfo.processInfo.environment)
        let client = RequestClient(
            context: try ZMQContextHolder.shared, endpoint: endpoint, timeoutMilliseconds: timeout, attempts: attempts,
            security: try BusSecurity.Settings.ofThisProcess())
        do {
            return try client.request(try codec.encode(envelope))
        } catch let error as RequestClient.NoReply {
            throw RequestFailure.noReply("\(error) — is sync-agent running?")
        }
    }
}
