import ArgumentParser
import BusRuntime
import Foundation
import ServiceRuntime
import ServiceSupport
import WidgetBusProtocol

/// The service's command line: `--help` lists the environment it reads; running it runs the
/// service until SIGTERM. Its executable, and the image's multi-call binary, call ``main()``.
public struct IntentHandlerCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "intent-handler",
        abstract: "Owns widget state: applies intents exactly once, commits, replies, publishes state events.",
        discussion: EnvironmentSetting.helpText([
            BusEndpoint.intents.setting, BusEndpoint.stateEvents.setting, BusEndpoint.stateSnapshot.setting,
            BusEndpoint.timelineEvents.setting, .dataDirectory, .stateStore, .stateCapacity, .intentPacing, .intentLongestWait, .timelineLongestLag,
        ] + BusBinding.settings + BusSecurity.settings + ServiceMain.settings + [.logLevel])
    )

    public init() {}

    public func run() async throws {
        let logger = LoggingBootstrap.makeLogger(label: "intent-handler")
        try await ServiceMain.run(logger: logger) {
            [IntentHandlerService(configuration: try IntentHandlerService.Configuration(environment: ProcessInfo.processInfo.environment), logger: logger)]
        }
    }
}
