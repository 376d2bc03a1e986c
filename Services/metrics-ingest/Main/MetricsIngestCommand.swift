import ArgumentParser
import Foundation
import MetricsIngest
import ServiceSupport
import WidgetBusProtocol

@main
struct MetricsIngestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "metrics-ingest",
        abstract: "Takes HRV, stress and RR samples pushed by wearables, keeps per-user aggregates, publishes their changes.",
        discussion: EnvironmentSetting.helpText([
            BusEndpoint.metrics.setting, BusEndpoint.metricsEvents.setting, BusEndpoint.metricsSnapshot.setting,
            BusEndpoint.stateEvents.setting, BusEndpoint.stateSnapshot.setting, .dataDirectory, .logLevel,
        ])
    )

    func run() async throws {
        let logger = LoggingBootstrap.makeLogger(label: "metrics-ingest")
        let service = MetricsIngestService(
            configuration: .init(environment: ProcessInfo.processInfo.environment), logger: logger)
        try await ServiceMain.run([service], logger: logger)
    }
}
