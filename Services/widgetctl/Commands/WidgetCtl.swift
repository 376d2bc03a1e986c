import ArgumentParser
import BusRuntime
import CommandLineText
import Foundation
import ServiceSupport
import WidgetBusProtocol

/// The publisher's command line. Its executable, and the image's multi-call binary, call ``main()``.
public struct WidgetCtl: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "widgetctl",
        abstract: "Send intents to WidgetBus, read timelines, snapshots and sync results, and watch events.",
        discussion: EnvironmentSetting.helpText(BusEndpoint.all.map(\.setting) + BusSecurity.settings) + """


            Output: replies, timelines, pending records, snapshots, sync results and metrics status are printed \
            as JSON on stdout (one line each); errors go to stderr. Load tests and benchmarks are the job of \
            widgetbus-loadtest, which is not part of the production image.

            Other exit statuses: 0 on success; 1 when the service answered with an error reply (its stable \
            code is printed), the result reports failures, or a file cannot be read or written; 2 when no service \
            answered after the retries; 64 on a usage error.
            """,
        subcommands: [
            SendCommand.self, TimelineCommand.self, SnapshotCommand.self, PendingCommand.self, WatchCommand.self,
            SyncCommand.self, SyncStatusCommand.self, IngestCommand.self, MetricsStatusCommand.self, PingCommand.self,
            PushTokenCommand.self, KeygenCommand.self, TokenCommand.self,
        ]
    )

    public init() {}

    /// Runs the command line `arguments` (the process's own when nil). A refused setting ends it as
    /// it ends every WidgetBus executable (``InvalidSetting/exitProcess(executable:)``); every
    /// other outcome as ArgumentParser reports it.
    public static func main(_ arguments: [String]? = nil) {
        do {
            var command = try parseAsRoot(arguments)
            try command.run()
        } catch let refusal as InvalidSetting {
            refusal.exitProcess(executable: "widgetctl")
        } catch {
            exit(withError: error)
        }
    }
}

/// Options every request-sending subcommand shares.
struct RequestOptions: ParsableArguments {
    @Option(help: "Milliseconds to wait for each reply attempt.")
    var timeout: Int = 2_000

    @Option(help: "Attempts before giving up (a lost request is resent with the same id).")
    var attempts: Int = 3
}

/// The outcome of one request, as widgetctl reports it.
enum RequestFailure: Error, CustomStringConvertible {
    case errorReply(ErrorBody)
    case noReply(String)

    var description: String {
        switch self {
        case .errorReply(let error): "error \(error.code): \(error.message)"
        case .noReply(let detail): detail
        }
    }

    var exitCode: ExitCode {
        switch self {
        case .errorReply: ExitCode(1)
        case .noReply: ExitCode(2)
        }
    }
}

extension RequestOptions {
    /// Sends `envelope` to `endpoint` (Lazy Pirate) and returns the raw reply payload. A
    /// `wrong_shard` reply is followed: the same request goes to the shard it names, or, while
    /// the user's slot moves between shards, to the same place again after a pause — for as long
    /// as the attempts' time (``timeout`` × ``attempts``) lasts.
    func send(_ envelope: Envelope<some Encodable & Sendable>, to endpoint: String, codec: WireCodec) throws -> Data {
        let context = try ZMQContextHolder.shared
        let security = try BusSecurity.Settings.ofThisProcess()
        let payload = try codec.encode(envelope)
        let deadline = ContinuousClock.now + .milliseconds(timeout * attempts)
        var shards = ShardMap(defaultEndpoint: endpoint)
        while true {
            let client = RequestClient(
                context: context, endpoint: shards.endpoint(for: envelope.user), timeoutMilliseconds: timeout, attempts: attempts,
                security: security)
            let reply: Data
            do {
                reply = try client.request(payload)
            } catch let error as RequestClient.NoReply {
                throw RequestFailure.noReply("\(error) — is the service running?")
            }
            guard let redirect = ReplyDecoding.wrongShardRedirect(in: reply, codec: codec), ContinuousClock.now < deadline else { return reply }
            if shards.learn(redirect) == .afterPause { Thread.sleep(forTimeInterval: 0.25) }
        }
    }
}

/// Prints the body of `reply` as one JSON line (unless `printing` is false) and returns it; an
/// error reply becomes exit status 1.
@discardableResult
func printBody<Body: Codable & Sendable>(of reply: Data, as type: Body.Type, codec: WireCodec, printing: Bool = true) throws -> Body {
    switch try ReplyDecoding.decode(reply, as: type, codec: codec) {
    case .success(let envelope):
        if printing { Console.line(String(decoding: try codec.encode(envelope.body), as: UTF8.self)) }
        return envelope.body
    case .failure(let error):
        throw RequestFailure.errorReply(error)
    }
}

/// Runs `body`, turning request failures into the documented exit status.
func reportingFailures(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let failure as RequestFailure {
        Console.error(failure.description)
        throw failure.exitCode
    }
}
