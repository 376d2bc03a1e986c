import ArgumentParser
import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle
import ServiceSupport

@main
struct SyncAgentCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync-agent",
        abstract: "Pushes pending widget records to PostgreSQL/Supabase (default: embedded SQLite) exactly once per revision.",
        discussion: EnvironmentSetting.helpText(SyncAgentConfiguration.settings)
    )

    @Flag(help: "Print the target schema (the SQL of deploy/postgres/001_widget_records.sql) and exit.")
    var printSchema = false

    func run() async throws {
        if printSchema {
            FileHandle.standardOutput.write(Data(TargetSchema.ddl.utf8))
            return
        }
        let logger = LoggingBootstrap.makeLogger(label: "sync-agent")
        let configuration: SyncAgentConfiguration
        do {
            configuration = try SyncAgentConfiguration(environment: ProcessInfo.processInfo.environment)
        } catch {
            throw ValidationError("\(error)")
        }

        var services: [ServiceGroupConfiguration.ServiceConfiguration] = []
        let target: any SyncTarget
        switch configuration.target {
        case .sqlite(let path):
            target = try SQLiteSyncTarget(path: path)
        case .postgres(let url):
            if !url.ignoredParameters.isEmpty {
                logger.warning("ignoring database URL parameters", metadata: ["parameters": "\(url.ignoredParameters)"])
            }
            let client = PostgresClient(
                configuration: try url.clientConfiguration(
                    connectTimeout: configuration.databaseTimeout, maximumConnections: configuration.concurrency),
                backgroundLogger: Logger(label: "sync-agent.postgres"))
            // First in the group, so it is shut down after the agent has finished its passes.
            services.append(.init(service: client))
            target = PostgresSyncTarget(client: client, description: url.redacted, logger: Logger(label: "sync-agent.postgres"))
        }
        services.append(.init(service: SyncAgentService(configuration: configuration, target: target, logger: logger)))
        let group = ServiceGroup(
            configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }
}
