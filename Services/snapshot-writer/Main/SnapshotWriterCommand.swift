import ArgumentParser
import Foundation
import ServiceSupport
import Snapshots
import WidgetBusProtocol

@main
struct SnapshotWriterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snapshot-writer",
        abstract: "Keeps one JSON snapshot file per user and widget kind, written atomically, never stale.",
        discussion: EnvironmentSetting.helpText([
            BusEndpoint.timelineEvents.setting, BusEndpoint.timelines.setting, .snapshotDirectory,
            .snapshotCoalesceDelay, .snapshotDiskCheck, .logLevel,
        ])
    )

    func run() async throws {
        let logger = LoggingBootstrap.makeLogger(label: "snapshot-writer")
        let service = SnapshotWriterService(
            configuration: try .init(environment: ProcessInfo.processInfo.environment), logger: logger)
        try await ServiceMain.run([service], logger: logger)
    }
}
