import Foundation
import GRDB
import Logging
import Testing
import WidgetBusProtocol
import WidgetDomain

@testable import IntentHandling
@testable import BusRuntime
@testable import SyncAgent

/// One sync pass in-process, against intent-handler's real processor and the real SQLite target,
/// at the two moments that matter: a pass that stops between its upsert and its acknowledgement,
/// and records that change while a pass runs. Records reach the target exactly once either way.
@Suite struct SyncPassTests {
    /// intent-handler's processor over a real store, answering in-process as its endpoint does.
    /// It can lose the acknowledgements sent to it, as when the agent dies before they arrive.
    final class IntentHandlerInProcess: IntentHandlerClient, @unchecked Sendable {
        struct Lost: Error {}

        // Guarded by `lock`.
        private let lock = NSLock()
        private let processor: IntentProcessor
        private var losesAcknowledgements = false

        init(path: String) throws {
            let codec = WireCodec()
            processor = try IntentProcessor(
                store: try SQLiteStateStore(path: path, codec: codec), codec: codec, epoch: "00000000000000a7", capacity: 100)
        }

        func loseAcknowledgements(_ lose: Bool) {
            lock.withLock { losesAcknowledgements = lose }
        }

        func request(_ payload: Data) async throws -> Data {
            try lock.withLock {
                if losesAcknowledgements, JSONFieldScanner(payload).string("type") == MessageType.acknowledgeRecords.rawValue {
                    throw Lost()
                }
                return processor.process([RoutedMessage(frames: [Data("agent".utf8), Data(), payload])], on: .intents)[0].reply
            }
        }

        /// Sends a user's intent and returns the state it left.
        @discardableResult
        func send(_ type: MessageType, user: String, body: String) async throws -> StateRecord {
            let payload = Data(
                #"{"version":1,"id":"\#(MessageID.random())","type":"\#(type.rawValue)","user":"\#(user)","sentAt":"2027-01-15T08:00:00Z","body":\#(body)}"#
                    .utf8)
            return try ReplyDecoding.decode(try await request(payload), as: StateReplyBody.self, codec: WireCodec()).get().body.record
        }

        func pending(_ user: String) async throws -> [RevisedRecord] {
            let payload = try WireCodec().encode(Envelope(type: MessageType.pendingRecordsRequest.rawValue, user: user, body: EmptyBody()))
            return try ReplyDecoding.decode(try await request(payload), as: PendingRecordsBody.self, codec: WireCodec()).get().body.records
        }
    }

    /// The real SQLite target, and something done just before its next upsert: what a user does
    /// while a pass is running.
    final class TargetWithInterlude: SyncTarget, @unchecked Sendable {
        let base: SQLiteSyncTarget
        // Guarded by `lock`.
        private let lock = NSLock()
        private var interlude: (@Sendable () async throws -> Void)?

        init(path: String) throws {
            base = try SQLiteSyncTarget(path: path)
        }

        var description: String { base.description }

        func beforeNextUpsert(_ step: @escaping @Sendable () async throws -> Void) {
            lock.withLock { interlude = step }
        }

        func prepareSchema() async throws {
            try await base.prepareSchema()
        }

        func upsert(_ rows: [TargetRow]) async throws {
            let step = lock.withLock { () -> (@Sendable () async throws -> Void)? in
                defer { interlude = nil }
                return interlude
            }
            try await step?()
            try await base.upsert(rows)
        }

        /// `id@revision` of every stored check-in, and whether its intervention is done.
        func checkIns() throws -> [String: (revision: Int, interventionCompleted: Bool)] {
            try DatabaseQueue(path: base.path).read { db in
                try Row.fetchAll(db, sql: "SELECT id, revision, intervention_completed FROM stress_check_ins").reduce(into: [:]) {
                    $0[$1["id"]] = ($1["revision"], $1["intervention_completed"])
                }
            }
        }
    }

    struct Harness {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sync-pass-\(UUID().uuidString)")
        let intentHandler: IntentHandlerInProcess
        let target: TargetWithInterlude
        let pass: SyncPass

        init() throws {
            intentHandler = try IntentHandlerInProcess(path: folder.appendingPathComponent("intent-handler.sqlite").path)
            target = try TargetWithInterlude(path: folder.appendingPathComponent("sync-target.sqlite").path)
            pass = SyncPass(intents: intentHandler, target: target, databaseTimeout: .seconds(10), logger: Logger(label: "test"))
        }
    }

    @Test func aPassStoppedBetweenUpsertAndAcknowledgementDuplicatesNothing() async throws {
        let harness = try Harness()
        defer { try? FileManager.default.removeItem(at: harness.folder) }
        for level in [0, 3, 5] {
            try await harness.intentHandler.send(.recordTension, user: "dag", body: #"{"level":\#(level)}"#)
        }
        let pending = try await harness.intentHandler.pending("dag")
        #expect(pending.count == 3)

        harness.intentHandler.loseAcknowledgements(true)
        let interrupted = await harness.pass.run(user: "dag")
        #expect(interrupted.pushed == 0 && interrupted.failures.count == 1)
        #expect(try harness.target.checkIns().count == 3, "the upsert was committed")
        #expect(try await harness.intentHandler.pending("dag") == pending, "nothing acknowledged: everything is still pending")

        harness.intentHandler.loseAcknowledgements(false)
        let next = await harness.pass.run(user: "dag")
        #expect(next.pushed == 3 && next.failures.isEmpty)
        #expect(try await harness.intentHandler.pending("dag").isEmpty)
        let stored = try harness.target.checkIns()
        #expect(Set(stored.map { "\($0.key)@\($0.value.revision)" }) == Set(pending.map { "\($0.record.id)@\($0.revision)" }))
    }

    @Test func recordsChangedDuringAPassStayPendingAndGoWithTheNext() async throws {
        let harness = try Harness()
        defer { try? FileManager.default.removeItem(at: harness.folder) }
        let intentHandler = harness.intentHandler
        try await intentHandler.send(.recordTension, user: "eli", body: #"{"level":3}"#)
        let severe = try await intentHandler.send(.recordTension, user: "eli", body: #"{"level":10}"#)
        guard case .tensionCheck(let state) = severe.state, case .suggestion(_, let checkIn) = state.phase else {
            Issue.record("a severe level suggests an intervention")
            return
        }

        harness.target.beforeNextUpsert {
            try await intentHandler.send(.markInterventionDone, user: "eli", body: #"{"checkInId":"\#(checkIn.id)"}"#)
            try await intentHandler.send(.recordTension, user: "eli", body: #"{"level":5}"#)
        }
        let during = await harness.pass.run(user: "eli")
        #expect(during.pushed == 2 && during.keptPending == 1, "the check-in changed during the pass stays pending")
        let left = try await intentHandler.pending("eli")
        #expect(left.count == 2 && left.contains { $0.record.id == checkIn.id }, "the changed check-in and the new one")

        let next = await harness.pass.run(user: "eli")
        #expect(next.pushed == 2 && next.keptPending == 0)
        #expect(try await intentHandler.pending("eli").isEmpty)
        let stored = try harness.target.checkIns()
        #expect(stored.count == 3 && stored[checkIn.id]?.interventionCompleted == true)
    }
}
