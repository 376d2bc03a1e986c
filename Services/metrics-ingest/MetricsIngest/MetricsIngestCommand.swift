import ArgumentParser
import BusRuntime
import Foundation
import ServiceRuntime
import ServiceSupport
import WidgetBusProtocol

/// The service's command line: `--help` lists the environment it reads; running it runs the
/// service until SIGTERM. Its executable, and the image's multi-call binary, call ``main()``.
public struct MetricsIngestCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "metrics-ingest",
        abstract: "Takes HRV, stress and RR samples pushed by wearables, keeps per-user aggregates, publishes their changes.",
        discussion: EnvironmentSetting.helpText([
            BusEndpoint.metrics.setting, BusEndpoint.metricsEvents.setting, BusEndpoint.metricsSnapshot.setting,
            BusEndpoint.stateEvents.setting, BusEndpoint.stateSnapshot.setting, .dataDirectory,
        ] + BusBinding.settings + BusSecurity.settings + ServiceMain.settings + [.logLevel])
    )

    public init() {}

    public func run() async throws {
        let logger = LoggingBootstrap.makeLogger(label: "metrics-ingest")
        try await ServiceMain.run(logger: logger) {
            [MetricsIngestService(configuration: try MetricsIngestService.Configuration(environment: ProcessInfo.processInfo.environment), logger: logger)]
        }
    }
}
