import BusRuntime
import Foundation
import Logging
import Metrics
import Observability
import ServiceSupport
import Synchronization
import WidgetBusProtocol

/// A way to ask intent-handler something: one request payload in, the reply payload out.
/// ``SyncBus`` implements it on its bus thread, resending each request by id until answered.
protocol IntentHandlerClient: Sendable {
    func request(_ payload: Data) async throws -> Data
}

/// One sync pass for one user — the same for every target:
///
/// 1. ask intent-handler for the user's pending records (`PendingRecordsRequest`), each with
///    the revision it was read at;
/// 2. upsert them all into the target in **one** transaction, keyed by record id and never over a
///    newer revision;
/// 3. if the target refused the data (a constraint), retry record by record, each in its own
///    transaction: the good ones are stored, the poison ones reported in `failures` and left
///    pending — they never block the others. If the target failed (down, timed out), the pass
///    fails: nothing is acknowledged, everything stays pending;
/// 4. acknowledge exactly the revisions stored (`AcknowledgeRecords`): intent-handler clears a
///    record only if it has not changed since, so records added or changed during the pass stay
///    pending by construction.
///
/// A crash anywhere is safe: before step 4 the records are still pending and the next pass
/// upserts them again, which changes nothing at the target.
final class SyncPass: Sendable {
    /// Acknowledgements per request, well under intent-handler's 64 KiB payload limit.
    static let acknowledgementsPerRequest = 250

    let intents: any IntentHandlerClient
    let target: any SyncTarget
    /// Bound on each database step (schema, batch upsert, each record's retry).
    let databaseTimeout: Duration
    let logger: Logger
    private let schemaReady = Atomic<Bool>(false)
    private let metrics = PassMetrics()

    /// What passes report (docs/OBSERVABILITY.md).
    private struct PassMetrics: Sendable {
        /// By result (``MetricCatalog/syncPasses``).
        let passes = Dictionary(uniqueKeysWithValues: ["succeeded", "partial", "failed"].map {
            ($0, Counter(MetricCatalog.syncPasses, ["result": $0]))
        })
        let duration = Timer(MetricCatalog.syncPassDuration)
        /// Records stored at the target and acknowledged to intent-handler.
        let pushed = Counter(MetricCatalog.syncRecordsPushed)
        /// Records a pass found pending, before it pushed them.
        let pending = Recorder(histogramOf: MetricCatalog.syncRecordsPending)
        /// Each upsert transaction at the target, its commit included.
        let commits = Timer(MetricCatalog.syncTargetCommitDuration)
        /// Users with records waiting, as the last sweep found them.
        let usersPending = Gauge(MetricCatalog.syncUsersPending)
    }

    init(intents: any IntentHandlerClient, target: any SyncTarget, databaseTimeout: Duration, logger: Logger) {
        self.intents = intents
        self.target = target
        self.databaseTimeout = databaseTimeout
        self.logger = logger
    }

    /// Creates the target's tables if that has not succeeded yet. Called at start and before each
    /// pass, so an agent started while the database was down catches up once it is back.
    func prepareSchemaIfNeeded() async throws {
        guard !schemaReady.load(ordering: .acquiring) else { return }
        try await onTarget { [target] in try await target.prepareSchema() }
        schemaReady.store(true, ordering: .releasing)
    }

    /// Runs one pass for `user`. Never throws: every failure is part of the result.
    func run(user: String) async -> SyncResult {
        let result = await pass(user: user)
        metrics.duration.recordMilliseconds(result.durationMilliseconds)
        metrics.pushed.increment(by: result.pushed)
        let outcome = result.succeeded ? "succeeded" : result.pushed > 0 ? "partial" : "failed"
        metrics.passes[outcome]?.increment()
        return result
    }

    private func pass(user: String) async -> SyncResult {
        let startedAt = Date()
        let clock = ContinuousClock.now
        func result(pushed: Int = 0, keptPending: Int = 0, failures: [SyncFailure] = []) -> SyncResult {
            let elapsed = ContinuousClock.now - clock
            return SyncResult(
                user: user, startedAt: startedAt, durationMilliseconds: (elapsed.asSeconds * 1_000_000).rounded() / 1000,
                pushed: pushed, keptPending: keptPending, failures: failures)
        }

        let pending: [RevisedRecord]
        do {
            pending = try await pendingRecords(user: user)
        } catch {
            return result(failures: [SyncFailure(error: "reading pending records from intent-handler: \(Self.describe(error))")])
        }
        metrics.pending.record(pending.count)
        guard !pending.isEmpty else { return result() }
        let rows = pending.map { TargetRow(user: user, $0) }

        var stored: [TargetRow] = []
        var refused: [SyncFailure] = []
        do {
            try await prepareSchemaIfNeeded()
            do {
                try await onTarget { [target] in try await target.upsert(rows) }
                stored = rows
            } catch SyncTargetError.rejected(let reason) {
                logger.info(
                    "target refused a batch; retrying record by record",
                    metadata: ["widgetbus.user": "\(user)", "widgetbus.records": "\(rows.count)", "widgetbus.reason": "\(reason)"])
                for row in rows {
                    do {
                        try await onTarget { [target] in try await target.upsert([row]) }
                        stored.append(row)
                    } catch SyncTargetError.rejected(let reason) {
                        refused.append(SyncFailure(collection: row.table.rawValue, id: row.id, error: reason))
                    }
                }
            }
        } catch {
            // Whatever was stored is not acknowledged: it stays pending and is upserted again.
            return result(failures: [SyncFailure(error: "sync target \(target.description): \(error)")])
        }

        var acknowledged = 0
        var kept = 0
        for start in stride(from: 0, to: stored.count, by: Self.acknowledgementsPerRequest) {
            let chunk = stored[start..<min(start + Self.acknowledgementsPerRequest, stored.count)]
            do {
                let reply = try await acknowledge(user: user, chunk.map(\.acknowledgement))
                acknowledged += chunk.count
                kept += reply.kept
            } catch {
                // Stored but not acknowledged: pending still, and upserted again next time.
                refused.append(SyncFailure(error: "acknowledging \(chunk.count) stored records to intent-handler: \(Self.describe(error))"))
                break
            }
        }
        return result(pushed: acknowledged, keptPending: kept, failures: refused)
    }

    /// The users with records waiting, for the periodic sweep.
    func pendingUsers() async throws -> [String] {
        let users = try await ask(.pendingUsersRequest, user: nil, body: EmptyBody(), expecting: PendingUsersBody.self).users
        metrics.usersPending.record(users.count)
        return users
    }

    private func pendingRecords(user: String) async throws -> [RevisedRecord] {
        try await ask(.pendingRecordsRequest, user: user, body: EmptyBody(), expecting: PendingRecordsBody.self).records
    }

    private func acknowledge(user: String, _ records: [RecordAcknowledgement]) async throws -> AcknowledgeReplyBody {
        try await ask(.acknowledgeRecords, user: user, body: AcknowledgeRecordsBody(records: records), expecting: AcknowledgeReplyBody.self)
    }

    /// One request to intent-handler, decoded; an error reply becomes a thrown ``ErrorBody``.
    private func ask<Body: Encodable & Sendable, Reply: Decodable & Sendable>(
        _ type: MessageType, user: String?, body: Body, expecting: Reply.Type
    ) async throws -> Reply {
        let payload = try WireCodec().encode(Envelope(type: type.rawValue, user: user, body: body))
        let reply = try await intents.request(payload)
        switch try ReplyDecoding.decode(reply, as: Reply.self, codec: WireCodec()) {
        case .success(let envelope): return envelope.body
        case .failure(let error): throw error
        }
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? ErrorBody { return "\(error.code): \(error.message)" }
        return "\(error)"
    }

    /// Runs one step at the target within the database timeout, timed.
    private func onTarget(_ step: @escaping @Sendable () async throws -> Void) async throws {
        let start = DispatchTime.now()
        defer { metrics.commits.recordInterval(since: start) }
        do {
            try await withDeadline(databaseTimeout, step)
        } catch let error as SyncTargetError {
            throw error
        } catch {
            throw SyncTargetError.failed("\(error)")
        }
    }
}
