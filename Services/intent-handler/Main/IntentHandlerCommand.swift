import ArgumentParser
import Foundation
import IntentHandling
import ServiceSupport
import WidgetBusProtocol

@main
struct IntentHandlerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "intent-handler",
        abstract: "Owns widget state: applies intents exactly once, commits, replies, publishes state events.",
        discussion: EnvironmentSetting.helpText([
            BusEndpoint.intents.setting, BusEndpoint.stateEvents.setting, BusEndpoint.stateSnapshot.setting,
            .dataDirectory, .stateCapacity, .intentPacing, .logLevel,
        ])
    )

    func run() async throws {
        let logger = LoggingBootstrap.makeLogger(label: "intent-handler")
        let configuration = try IntentHandlerService.Configuration(environment: ProcessInfo.processInfo.environment)
        let service = IntentHandlerService(configuration: configuration, logger: logger)
        try await ServiceMain.run([service], logger: logger)
    }
}
