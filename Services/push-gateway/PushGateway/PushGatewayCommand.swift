import ArgumentParser
import BusRuntime
import Foundation
import ServiceRuntime
import ServiceSupport
import WidgetBusProtocol

/// The service's command line: `--help` lists the environment it reads; running it runs the
/// service until SIGTERM. Its executable, and the image's multi-call binary, call ``main()``.
public struct PushGatewayCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "push-gateway",
        abstract: "Wakes users' widgets with WidgetKit push notifications when their content changes, within WidgetKit's budget.",
        discussion: EnvironmentSetting.helpText(
            [
                BusEndpoint.stateEvents.setting, BusEndpoint.stateSnapshot.setting, BusEndpoint.timelineEvents.setting,
                BusEndpoint.timelines.setting, BusEndpoint.intents.setting, .dataDirectory, .pushCoalescingDelay,
                .pushMinimumInterval, .pushDailyLimit,
            ] + APNsSettings.all + BusSecurity.settings + ServiceMain.settings + [.logLevel])
    )

    public init() {}

    public func run() async throws {
        let logger = LoggingBootstrap.makeLogger(label: "push-gateway")
        let environment = ProcessInfo.processInfo.environment
        try await ServiceMain.run(logger: logger) {
            let configuration = try PushGatewayService.Configuration(environment: environment)
            let store = try PushStore(path: configuration.databasePath)
            let (sender, beside) = try APNsSettings.sender(in: environment, providerTokens: store.providerTokens, logger: logger)
            // The sends before the bus, so that a stop stops the bus first (services stop in reverse order).
            let sends = try PushSends(sender: sender)
            return beside + [sends, PushGatewayService(configuration: configuration, store: store, sends: sends, logger: logger)]
        }
    }
}
