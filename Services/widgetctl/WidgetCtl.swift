import ArgumentParser
import Foundation
import ServiceSupport
import WidgetBusProtocol

@main
struct WidgetCtl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "widgetctl",
        abstract: "Send intents to WidgetBus, read timelines and watch events.",
        discussion: EnvironmentSetting.helpText(BusEndpoint.all.map(\.setting)) + """


            Exit status: 0 on success, 1 when the service answered with an error, 2 when no service answered.
            """,
        subcommands: [SendCommand.self, TimelineCommand.self, SnapshotCommand.self, PendingCommand.self, WatchCommand.self, PingCommand.self, SyncCommand.self, SyncStatusCommand.self, BenchCommand.self, BenchSyncCommand.self, BenchSnapshotsCommand.self, LoadTestCommand.self, IngestCommand.self, MetricsStatusCommand.self, BenchMetricsCommand.self]
    )
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
    /// Sends `envelope` to `endpoint` (Lazy Pirate) and returns the raw reply payload.
    func send(_ envelope: Envelope<JSONValue>, to endpoint: String, codec: WireCodec) throws -> Data {
        let context = try ZMQContextHolder.shared
        let client = RequestClient(context: context, endpoint: endpoint, timeoutMilliseconds: timeout, attempts: attempts)
        do {
            return try client.request(try codec.encode(envelope))
        } catch let error as RequestClient.NoReply {
            throw RequestFailure.noReply("\(error) — is the service running?")
        }
    }
}

/// Prints `text` as one line on stdout, unbuffered so pipes see each line at once.
func printLine(_ text: String) {
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
}

func printError(_ text: String) {
    FileHandle.standardError.write(Data(("widgetctl: " + text + "\n").utf8))
}

/// Runs `body`, turning request failures into the documented exit status.
func reportingFailures(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let failure as RequestFailure {
        printError(failure.description)
        throw failure.exitCode
    }
}
