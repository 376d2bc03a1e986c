import ArgumentParser
import BusRuntime
import Foundation
import ServiceRuntime
import ServiceSupport
import WidgetBusProtocol

/// The service's command line: `--help` lists the environment it reads; running it runs the
/// service until SIGTERM. Its executable, and the image's multi-call binary, call ``main()``.
public struct SnapshotWriterCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "snapshot-writer",
        abstract: "Keeps one JSON snapshot file per user and widget kind, written atomically, never stale.",
        discussion: EnvironmentSetting.helpText([
            BusEndpoint.timelineEvents.setting, BusEndpoint.timelines.setting, .snapshotDirectory,
            .snapshotCoalesceDelay, .snapshotDiskCheck, .snapshotWaitingBudget,
        ] + BusSecurity.settings + ServiceMain.settings + [.logLevel])
    )

    public init() {}

    public func run() async throws {
        let logger = LoggingBootstrap.makeLogger(label: "snapshot-writer")
        try await ServiceMain.run(logger: logger) {
            [SnapshotWriterService(configuration: try SnapshotWriterService.Configuration(environment: ProcessInfo.processInfo.environment), logger: logger)]
        }
    }
}
