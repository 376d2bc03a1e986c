import Foundation
import Testing
import WidgetBusProtocol
import WidgetDomain

/// Records wait in intent-handler until the sync target confirms them, revision by revision.
@Suite(.serialized, .postgresServer, .blockingThreads)
struct PendingRecordsTests {
    /// Where intent-handler keeps its state: its SQLite file, or a fresh database of the suite's
    /// PostgreSQL server.
    enum Store: String, CaseIterable, CustomTestStringConvertible {
        case sqlite, postgres
        var testDescription: String { rawValue }

        func bus() throws -> BusFixture {
            let bus = try BusFixture()
            if self == .postgres { try bus.keepState(inPostgresDatabase: "pending_\(UUID().uuidString.prefix(8).lowercased())") }
            return bus
        }
    }

    func pending(_ bus: BusFixture, _ user: String) throws -> [RevisedRecord] {
        let result = try bus.widgetctl("pending", "--user", user)
        return try bus.codec.decode(PendingRecordsBody.self, from: result.stdoutData).records
    }

    /// The users with records pending, as sync-agent's sweep asks intent-handler for them.
    func pendingUsers(_ bus: BusFixture) throws -> [String] {
        let client = try RawClient(endpoint: bus.endpoint(.intents))
        let request = RawClient.envelope(type: MessageType.pendingUsersRequest.rawValue, user: nil, body: "{}")
        let reply = try #require(try client.exchange([Data(request.utf8)]))
        return try bus.codec.decode(Envelope<PendingUsersBody>.self, from: reply[0]).body.users
    }

    func acknowledge(_ bus: BusFixture, _ user: String, _ acks: [RecordAcknowledgement]) throws -> AcknowledgeReplyBody {
        let body = String(decoding: try bus.codec.encode(AcknowledgeRecordsBody(records: acks)), as: UTF8.self)
        let result = try bus.sendRaw("AcknowledgeRecords", user: user, body: body)
        #expect(result.status == 0, "\(result.stdout)")
        return try bus.codec.decode(Envelope<AcknowledgeReplyBody>.self, from: result.stdoutData).body
    }

    @Test(arguments: Store.allCases)
    func acknowledgedRevisionsAreClearedAndLaterChangesStayPending(_ store: Store) throws {
        let bus = try store.bus()
        try bus.start(.intentHandler)
        try bus.send(.recordTension, user: "quinn", body: #"{"level":3}"#)
        let suggested = try bus.send(.recordTension, user: "quinn", body: #"{"level":10}"#)
        guard case .tensionCheck(let state) = suggested.state, case .suggestion(_, let checkIn) = state.phase else {
            Issue.record("expected a suggestion")
            return
        }
        try bus.send(.recordTension, user: "paul", body: #"{"level":0}"#)
        let before = try pending(bus, "quinn")
        #expect(before.count == 2)
        #expect(try pendingUsers(bus) == ["paul", "quinn"])

        // The check-in changes after the sync target read it: that acknowledgement must not clear it.
        try bus.send(.markInterventionDone, user: "quinn", body: #"{"checkInId":"\#(checkIn.id)"}"#)
        let reply = try acknowledge(bus, "quinn", before.map(\.acknowledgement))
        #expect(reply.cleared == 1)
        #expect(reply.kept == 1)

        let after = try pending(bus, "quinn")
        #expect(after.count == 1)
        guard case .tensionCheckIn(let remaining)? = after.first?.record else {
            Issue.record("expected a pending check-in, got \(after)")
            return
        }
        #expect(remaining.id == checkIn.id)
        #expect(remaining.interventionCompleted)

        #expect(try acknowledge(bus, "quinn", after.map(\.acknowledgement)).cleared == 1)
        #expect(try pending(bus, "quinn").isEmpty)
        #expect(try pendingUsers(bus) == ["paul"])
    }

    @Test func appForegroundPublishesTheTriggerAndListsWhatWillSync() throws {
        let bus = try BusFixture()
        try bus.start(.intentHandler)
        try bus.start(.timelineService)
        try bus.send(.recordTension, user: "rosa", body: #"{"level":5}"#)

        let watcher = try ServiceProcess(
            name: "watch", executable: BusFixture.productsDirectory.appendingPathComponent("widgetctl"),
            environment: bus.environment, logDirectory: bus.root,
            arguments: ["watch", "--topic", "state.foreground.", "--count", "1", "--seconds", "10"])
        try bus.waitUntil("widgetctl watch is subscribed", timeout: 10) { watcher.log.contains("watching: subscribed") }
        let result = try bus.sendRaw("AppForeground", user: "rosa")
        #expect(result.status == 0)
        #expect(try bus.codec.decode(Envelope<PendingRecordsBody>.self, from: result.stdoutData).body.records.count == 1)
        try bus.waitUntil("watch sees AppForegrounded", timeout: 10) { !watcher.isRunning }
        #expect(watcher.output.contains(#""type":"AppForegrounded""#))

        let users = try bus.sendRaw("PendingUsersRequest", user: "rosa")
        #expect(try bus.codec.decode(Envelope<PendingUsersBody>.self, from: users.stdoutData).body.users == ["rosa"])

        // The foreground event takes a sequence number; timeline-service skips it without a resync.
        let next = try bus.send(.resetWidget, user: "rosa")
        #expect(try bus.tensionTimeline(user: "rosa", atLeastVersion: next.version).stateVersion == next.version)
    }
}
