import Foundation
import Logging
import PostgresNIO
import PostgresStorage
import ServiceLifecycle
import ServiceSupport

/// sync-agent as a ServiceLifecycle service: the bus (``SyncBus``, one dedicated thread) and
/// the scheduler (``SyncScheduler``, async) joined by one `AsyncStream` of events.
///
/// Graceful shutdown (SIGTERM/SIGINT): the scheduler stops starting passes and lets the ones in
/// hand finish — upsert, acknowledgement and result — then the bus sends the last results and
/// replies, closes its sockets and the service returns. A pass waiting for intent-handler gets
/// the same grace (``SyncPlan/shutdownGrace``): then its request fails and the pass ends, so a
/// frozen intent-handler cannot hold the stop — a cancellation alone would not reach a pass
/// waiting for a reply. (A copy of its acknowledgement already sent may still be applied when
/// intent-handler resumes: the records it clears are stored at the target already.) A
/// PostgreSQL client, when there is one, is a separate service earlier in the group, so it is
/// shut down after this one.
public struct SyncAgentService: Service {
    let configuration: SyncAgentConfiguration
    let target: any SyncTarget
    let logger: Logger

    /// What sync-agent runs, in group order: for a PostgreSQL target its client first (so it is
    /// shut down after the agent has finished its passes), then the agent.
    public static func services(configuration: SyncAgentConfiguration, logger: Logger) throws -> [any Service] {
        switch configuration.target {
        case .sqlite(let path):
            return [SyncAgentService(configuration: configuration, target: try SQLiteSyncTarget(path: path), logger: logger)]
        case .postgres(let url):
            if !url.ignoredParameters.isEmpty {
                logger.warning("ignoring database URL parameters", metadata: ["widgetbus.parameters": "\(url.ignoredParameters)"])
            }
            let client = PostgresClient(
                configuration: try url.clientConfiguration(
                    connectTimeout: configuration.databaseTimeout, maximumConnections: configuration.concurrency),
                backgroundLogger: Logger(label: "sync-agent.postgres"))
            let target = PostgresSyncTarget(client: client, description: url.redacted, logger: Logger(label: "sync-agent.postgres"))
            return [client, SyncAgentService(configuration: configuration, target: target, logger: logger)]
        }
    }

    public func run() async throws {
        let bus = try SyncBus(configuration: configuration.bus, logger: logger)
        let pass = SyncPass(intents: bus, target: target, databaseTimeout: configuration.databaseTimeout, logger: logger)
        let (events, continuation) = AsyncStream.makeStream(of: SyncScheduler.Event.self)
        let scheduler = SyncScheduler(
            pass: pass, deliver: bus.deliver, events: events, continuation: continuation, sweepInterval: configuration.sweepInterval,
            backoff: configuration.backoff, concurrency: configuration.concurrency, logger: logger)
        logger.info(
            "sync-agent starting",
            metadata: [
                "widgetbus.target": "\(target.description)", "widgetbus.interval": "\(configuration.sweepInterval)",
                "widgetbus.concurrency": "\(configuration.concurrency)",
                "widgetbus.backoff": "\(configuration.backoff.base)…\(configuration.backoff.cap)",
            ])

        try await withThrowingDiscardingTaskGroup { group in
            group.addTask {
                // The bus ends before the scheduler only when it fails (a port in use): finishing
                // the stream ends the scheduler too, and the error ends the service.
                defer { continuation.finish() }
                try await bus.run { trigger in
                    if case .terminated = continuation.yield(.trigger(trigger)) { return false }
                    return true
                }
            }
            await withGracefulShutdownHandler {
                await scheduler.run()
            } onGracefulShutdown: {
                continuation.yield(.shutdown)
                bus.finishRequests(within: SyncPlan.shutdownGrace.asSeconds)
            }
            continuation.finish()
            bus.shutdown()
        }
        logger.info("sync-agent stopped")
    }
}
