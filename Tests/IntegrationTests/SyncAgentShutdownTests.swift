import Foundation
import Testing
import WidgetBusProtocol

#if canImport(Glibc)
import Glibc
#endif

/// sync-agent stops within two seconds of SIGTERM whatever its database does: here a server that
/// takes the connection and never answers, while a pass is in hand. Nothing is lost: the record
/// the pass was syncing is still pending afterwards.
@Suite(.serialized, .blockingThreads)
struct SyncAgentShutdownTests {
    @Test func aSilentDatabaseDoesNotHoldUpTheShutdown() throws {
        let bus = try BusFixture()
        try bus.start(.intentHandler)
        let database = try SilentServer()
        let agent = try bus.start(
            .syncAgent,
            extraEnvironment: [
                "WIDGETBUS_SYNC_DATABASE_URL": "postgres://widgetbus@127.0.0.1:\(database.port)/widgetbus?sslmode=disable",
                "WIDGETBUS_SYNC_DATABASE_TIMEOUT": "30", "WIDGETBUS_SYNC_INTERVAL": "3600",
            ])
        _ = try bus.send(.recordTension, user: "stella", body: #"{"level":7}"#)
        #expect(try bus.pendingRecords(user: "stella").count == 1)

        // A pass for stella starts and waits on the database.
        #expect(try bus.sendRaw("AppForeground", user: "stella").status == 0)
        try bus.waitUntil("sync-agent runs stella's pass", timeout: 10) { agent.log.contains("app foregrounded") }

        let signalled = ContinuousClock.now
        let status = agent.terminate(within: 10)
        let took = ContinuousClock.now - signalled
        #expect(status == 0, "a clean exit:\n\(agent.log)")
        #expect(took < .seconds(2), "stopped \(took) after SIGTERM")
        #expect(agent.log.contains("sync passes cut short by the shutdown"), "the pass in hand was cut short:\n\(agent.log)")
        #expect(try bus.pendingRecords(user: "stella").count == 1, "the record the pass was syncing is still pending")
    }
}

/// A TCP server on a free loopback port that completes connections (the kernel's backlog) and
/// never reads or writes: a database that stopped answering.
private final class SilentServer {
    let port: Int
    private let descriptor: Int32

    init() throws {
        (descriptor, port) = try boundLoopbackSocket()
        guard listen(descriptor, 64) == 0 else {
            close(descriptor)
            throw POSIXError(.EADDRINUSE)
        }
    }

    deinit {
        close(descriptor)
    }
}
