import ArgumentParser
import BusRuntime
import Foundation
import ServiceRuntime
import ServiceSupport
import WidgetBusProtocol

/// The service's command line: `--help` lists the environment it reads; running it runs the
/// service until SIGTERM. Its executable, and the image's multi-call binary, call ``main()``.
public struct TimelineServiceCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "timeline-service",
        abstract: "Answers widget timeline requests and publishes every new timeline.",
        discussion: EnvironmentSetting.helpText([
            BusEndpoint.stateEvents.setting, BusEndpoint.stateSnapshot.setting, BusEndpoint.metricsEvents.setting,
            BusEndpoint.metricsSnapshot.setting, BusEndpoint.timelines.setting,
            BusEndpoint.timelineEvents.setting,
        ] + BusBinding.settings + BusSecurity.settings + ServiceMain.settings + [.logLevel])
    )

    public init() {}

    public func run() async throws {
        let logger = LoggingBootstrap.makeLogger(label: "timeline-service")
        try await ServiceMain.run(logger: logger) {
            [TimelineService(configuration: try TimelineService.Configuration(environment: ProcessInfo.processInfo.environment), logger: logger)]
        }
    }
}
