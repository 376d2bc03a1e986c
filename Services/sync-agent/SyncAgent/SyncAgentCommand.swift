import ArgumentParser
import Foundation
import ServiceRuntime
import ServiceSupport

/// The service's command line: `--help` lists the environment it reads; running it runs the
/// service until SIGTERM. Its executable, and the image's multi-call binary, call ``main()``.
public struct SyncAgentCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "sync-agent",
        abstract: "Pushes pending widget records to PostgreSQL/Supabase (default: embedded SQLite) exactly once per revision.",
        discussion: EnvironmentSetting.helpText(SyncAgentConfiguration.settings)
    )

    @Flag(help: "Print the target schema (the SQL of deploy/postgres/001_widget_records.sql) and exit.")
    var printSchema = false

    public init() {}

    public func run() async throws {
        if printSchema {
            FileHandle.standardOutput.write(Data(TargetSchema.ddl.utf8))
            return
        }
        let logger = LoggingBootstrap.makeLogger(label: "sync-agent")
        try await ServiceMain.run(logger: logger) {
            try SyncAgentService.services(
                configuration: try SyncAgentConfiguration(environment: ProcessInfo.processInfo.environment), logger: logger)
        }
    }
}
