import ArgumentParser
import Foundation
import ServiceSupport
import Timelines
import WidgetBusProtocol

@main
struct TimelineServiceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "timeline-service",
        abstract: "Answers widget timeline requests and publishes every new timeline.",
        discussion: EnvironmentSetting.helpText([
            BusEndpoint.stateEvents.setting, BusEndpoint.stateSnapshot.setting, BusEndpoint.metricsEvents.setting,
            BusEndpoint.metricsSnapshot.setting, BusEndpoint.timelines.setting,
            BusEndpoint.timelineEvents.setting, .logLevel,
        ])
    )

    func run() async throws {
        let logger = LoggingBootstrap.makeLogger(label: "timeline-service")
        let service = TimelineService(
            configuration: .init(environment: ProcessInfo.processInfo.environment), logger: logger)
        try await ServiceMain.run([service], logger: logger)
    }
}
