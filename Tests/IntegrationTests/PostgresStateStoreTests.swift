import Foundation
import Testing
import WidgetBusProtocol
import WidgetDomain

/// intent-handler keeping its state in a real PostgreSQL server (`WIDGETBUS_STATE_STORE` set to
/// a `postgres://` URL) instead of its SQLite file: the same answers, nothing acknowledged lost
/// to a kill -9, and a server that goes away costs the requests made meanwhile, never the state.
@Suite(.serialized, .postgresServer, .blockingThreads)
struct PostgresStateStoreTests {
    /// A bus whose intent-handler keeps its state in `database`, a fresh database of the suite's server.
    func bus(database: String) throws -> (BusFixture, PostgresServer) {
        let bus = try BusFixture()
        return (bus, try bus.keepState(inPostgresDatabase: database))
    }

    @Test func everyKindOfChangeIsKeptInPostgreSQLAndSurvivesAKill9() throws {
        let (bus, server) = try bus(database: "state_kill")
        try bus.start(.intentHandler)
        try bus.send(.recordTension, user: "gina", body: #"{"level":3}"#)
        let retried = try bus.sendRaw("RecordTensionIntent", user: "gina", body: #"{"level":0}"#, id: "retry-1")
        let again = try bus.sendRaw("RecordTensionIntent", user: "gina", body: #"{"level":0}"#, id: "retry-1")
        #expect(retried.status == 0 && again.stdout == retried.stdout, "a retried id gets the first answer")
        let suggested = try bus.send(.recordTension, user: "gina", body: #"{"level":10}"#)
        guard case .tensionCheck(let state) = suggested.state, case .suggestion(_, let checkIn) = state.phase else {
            Issue.record("expected a suggestion")
            return
        }
        try bus.succeed("send", "SetTimeZone", "--user", "gina", "--body", #"{"timeZone":"Europe/Paris"}"#)
        try bus.succeed("push-token", "register", "--user", "gina", "--token", String(repeating: "ab", count: 32), "--environment", "production")

        let database = "state_kill"
        #expect(try server.psql("SELECT count(*) FROM widgetbus.widget_state", database: database) == "1")
        #expect(try server.psql("SELECT time_zone FROM widgetbus.user_profile WHERE user_id = 'gina'", database: database) == "Europe/Paris")
        #expect(try server.psql("SELECT count(*) FROM widgetbus.pending_record WHERE user_id = 'gina'", database: database) == "3")
        #expect(try server.psql("SELECT count(*) FROM widgetbus.user_push_tokens", database: database) == "1")
        #expect(!FileManager.default.fileExists(atPath: bus.root.appendingPathComponent("data/intent-handler.sqlite").path), "no SQLite store")

        bus.kill9(.intentHandler)
        try bus.start(.intentHandler)
        try bus.start(.timelineService)
        #expect(try bus.pendingRecords(user: "gina").count == 3)
        let before = try #require(try bus.storedState(.tensionCheck, user: "gina"))
        let done = try bus.send(.markInterventionDone, user: "gina", body: #"{"checkInId":"\#(checkIn.id)"}"#)
        #expect(done.version > before.version, "the sequence continues across the kill")
        guard case .tensionCheck(let doneState) = done.state, case .completed = doneState.phase else {
            Issue.record("the suggestion did not survive the kill: \(done.state)")
            return
        }
        let timeline = try bus.tensionTimeline(user: "gina", atLeastVersion: done.version)
        #expect(timeline.timeZone == "Europe/Paris", "timeline-service read the profile from intent-handler's snapshot")
        #expect(try server.psql("SELECT value FROM widgetbus.bus_sequence", database: database) == "\(done.version)")
    }

    @Test func withTheServerDownRequestsAreRefusedAndChangeNothingThenServedOnceItIsBack() throws {
        let (bus, server) = try bus(database: "state_down")
        try bus.start(.intentHandler)
        let first = try bus.send(.recordTension, user: "hal", body: #"{"level":3}"#)

        try server.stopImmediately()
        let refused = try bus.sendExpectingError(.recordTension, user: "hal", body: #"{"level":10}"#)
        #expect(refused.code == .internalError, "\(refused)")
        #expect(refused.message.contains("PostgreSQL") && !refused.message.contains("Generic description"), "says why: \(refused.message)")
        try server.start()

        let next = try bus.send(.recordTension, user: "hal", body: #"{"level":5}"#)
        #expect(next.version == first.version + 1, "the refused intent took no sequence")
        let levels = try bus.pendingRecords(user: "hal").map { record -> Int? in
            guard case .tensionCheckIn(let checkIn) = record else { return nil }
            return checkIn.tensionLevel
        }
        #expect(levels.sorted { ($0 ?? -1) < ($1 ?? -1) } == [3, 5], "the check-ins of levels 3 and 5, none of the refused 10")
    }

    /// What a transaction whose COMMIT's answer was lost leaves: changes intent-handler did not
    /// see committed. Here another session makes them; intent-handler must go on from the store.
    @Test func changesCommittedByAnotherSessionAreReadBackNotOverwrittenFromMemory() throws {
        let (bus, server) = try bus(database: "state_behind")
        try bus.start(.intentHandler)
        let suggested = try bus.send(.recordTension, user: "ivy", body: #"{"level":10}"#)
        guard case .tensionCheck(let state) = suggested.state, case .suggestion(_, let checkIn) = state.phase else {
            Issue.record("expected a suggestion")
            return
        }
        try server.psql(
            "BEGIN; DELETE FROM widgetbus.widget_state WHERE user_id = 'ivy'; UPDATE widgetbus.bus_sequence SET value = value + 5; COMMIT",
            database: "state_behind")

        let refused = try bus.sendExpectingError(.markInterventionDone, user: "ivy", body: #"{"checkInId":"\#(checkIn.id)"}"#)
        #expect(refused.code.rawValue == "unknown_check_in", "ivy's state is read from the store, where it is gone: \(refused)")
        let next = try bus.send(.recordTension, user: "ivy", body: #"{"level":0}"#)
        #expect(next.version == suggested.version + 6, "the sequence goes on from the store's, none given twice")
    }
}
