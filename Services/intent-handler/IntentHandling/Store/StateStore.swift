import Foundation
import WidgetBusProtocol
import WidgetDomain

/// intent-handler's durable store, the single source of widget state: per-user app states and
/// profiles, the records pending sync, each user's push tokens, the replies to handled requests
/// (for idempotent retries) and the event sequence. Every change happens in one transaction with
/// the reply it produces, and a transaction is committed before any of its replies or events
/// leaves the process.
///
/// Two implementations, chosen by `WIDGETBUS_STATE_STORE`: SQLite in the data folder (the
/// embedded default, ``SQLiteStateStore``) and PostgreSQL (``PostgresStateStore``), the engine
/// that lets state outlive one machine. Both keep the same tables; only their SQL differs, so
/// everything above the rows — encoding, the snapshot's topic filter — is written once, here.
protocol StateStore: AnyObject {
    /// Where the store is, for logs (a path, or a URL without its password).
    var location: String { get }
    /// Runs `body` in one transaction, committed when it returns; nothing of it is kept when it
    /// or the commit throws.
    func write<T>(_ body: (any StateTransaction) throws -> T) throws -> T
    /// The sync backlog: how many records wait, and since when the oldest of them (nil when none
    /// waits, or when those waiting became pending before their dates were kept).
    func pendingBacklog() throws -> (records: Int, oldest: Date?)
    /// Deletes the replies kept for retries that were handled before `date`; returns how many.
    func pruneHandledRequests(olderThan date: Date) throws -> Int

    /// How often a store shared by shards renews and balances this process's slot leases
    /// (``maintainLeases()``); nil for a store of one process, which holds every slot.
    var leaseRenewalInterval: TimeInterval? { get }
    func maintainLeases() throws
    /// How many slots this process took since it started: when the count changes, the states
    /// it holds in memory may be older than the store's, written meanwhile by another shard.
    var slotsTaken: Int { get }
}

/// How long a handled request's reply is kept for retries.
let handledRequestRetention: TimeInterval = 24 * 60 * 60

/// The rows of one transaction of a ``StateStore``, as bytes: the implementations differ only in
/// SQL, and this protocol's extension does the coding.
protocol StateTransaction {
    var codec: WireCodec { get }

    /// The stored event sequence, which no other session can change until this transaction
    /// ends: each transaction starts here, so that one committed meanwhile by another session —
    /// a transaction whose COMMIT's answer was lost, finishing on the server — is waited for
    /// and seen.
    func lockSequence() throws -> UInt64
    func saveSequence(_ sequence: UInt64) throws

    /// Where each of `users` belongs whose slot this process does not hold now; nil from a
    /// store of one process, which holds every slot (and does not call `users`). The slots it
    /// does hold cannot be taken by another shard until the transaction ends, so a change to
    /// their users commits only while this process owns them.
    func redirects(for users: () -> Set<String>) throws -> [String: ShardRedirect]?

    /// Starts the transaction of a burst of intents: the stored sequence, locked as by
    /// ``lockSequence()``, and where the burst's `users` belong, as ``redirects(for:)`` says. A
    /// server store also reads the replies kept for the burst's request `ids`, so that their
    /// lookups cost no round trip each, and does all this in one round trip. `ids` and `users` are
    /// called only by a store that needs them.
    func startBurst(ids: () -> [String], users: () -> Set<String>) throws -> (sequence: UInt64, redirects: [String: ShardRedirect]?)
    func handledRequest(id: String) throws -> (user: String?, type: String, reply: Data)?
    func saveHandledRequest(id: String, user: String?, type: String, reply: Data, at date: Date) throws

    /// The encoded ``StateRecord`` of `user`'s `app`.
    func stateRow(user: String, app: WidgetApp) throws -> Data?
    func saveStateRow(user: String, app: WidgetApp, version: UInt64, record: Data) throws
    /// Every state row, ordered by user and app.
    func stateRows() throws -> [(user: String, app: String, record: Data)]

    func profile(user: String) throws -> UserProfile?
    func saveProfile(_ profile: UserProfile) throws
    /// Every profile, ordered by user.
    func profiles() throws -> [UserProfile]

    /// A user's push tokens, as one encoded array.
    func pushTokensRow(user: String) throws -> (version: UInt64, tokens: Data)?
    /// A user left with none keeps the row, so the version of that change is what later
    /// replies report, but has no entry in snapshots.
    func savePushTokensRow(user: String, version: UInt64, tokens: Data) throws
    /// Every user's push tokens, ordered by user.
    func pushTokensRows() throws -> [(user: String, version: UInt64, tokens: Data)]

    /// Inserts or replaces a pending record; `revision` tells a later sync acknowledgement
    /// whether it acknowledged this version of the record or an older one. A record already
    /// pending keeps the date it first became pending.
    func savePendingRecordRow(user: String, collection: String, id: String, revision: UInt64, record: Data, at date: Date) throws
    /// A user's pending records, ordered by collection and id.
    func pendingRecordRows(user: String) throws -> [(revision: UInt64, record: Data)]
    /// The users with records pending, ordered.
    func pendingUsers() throws -> [String]
    /// Clears the record if its revision is still `revision`; returns whether it did.
    func clearPendingRecord(user: String, collection: String, id: String, revision: UInt64) throws -> Bool

    /// Runs `body` so that, when it throws, nothing it changed is kept, and the transaction
    /// goes on.
    func inSavepoint<T>(_ body: () throws -> T) throws -> T
}

extension StateTransaction {
    func state(user: String, app: WidgetApp) throws -> StateRecord? {
        try stateRow(user: user, app: app).map { try codec.decode(StateRecord.self, from: $0) }
    }

    func saveState(_ record: StateRecord) throws {
        try saveStateRow(user: record.user, app: record.app, version: record.version, record: try codec.encode(record))
    }

    func pushTokens(user: String) throws -> UserPushTokens? {
        try pushTokensRow(user: user).map {
            UserPushTokens(user: user, tokens: try codec.decode([WidgetPushToken].self, from: $0.tokens), version: $0.version)
        }
    }

    func savePushTokens(_ pushTokens: UserPushTokens) throws {
        try savePushTokensRow(user: pushTokens.user, version: pushTokens.version, tokens: try codec.encode(pushTokens.tokens))
    }

    func savePendingRecord(user: String, record: PendingRecord, revision: UInt64, at date: Date) throws {
        try savePendingRecordRow(
            user: user, collection: record.collection, id: record.id, revision: revision, record: try codec.encode(record), at: date)
    }

    func pendingRecords(user: String) throws -> [RevisedRecord] {
        try pendingRecordRows(user: user).map { RevisedRecord(revision: $0.revision, record: try codec.decode(PendingRecord.self, from: $0.record)) }
    }

    /// Clears the acknowledged records whose revision is still the acknowledged one; returns how
    /// many were cleared. A record changed after the acknowledged revision stays pending.
    func acknowledge(user: String, _ acknowledgements: [RecordAcknowledgement]) throws -> Int {
        try acknowledgements.reduce(0) { cleared, acknowledgement in
            let wasCleared = try clearPendingRecord(
                user: user, collection: acknowledgement.collection, id: acknowledgement.id, revision: acknowledgement.revision)
            return cleared + (wasCleared ? 1 : 0)
        }
    }

    /// Every state, profile and user's push tokens whose topic starts with `topicPrefix`, with the
    /// sequence they are current at in the publisher's `epoch`.
    func snapshot(topicPrefix: String, epoch: String) throws -> SnapshotBody {
        // Filtered by topic before decoding: a follower that asks for profiles reads no state.
        let states = try stateRows()
            .filter { row in WidgetApp(rawValue: row.app).map { Topic.state(app: $0, user: row.user).hasPrefix(topicPrefix) } ?? false }
            .map { try codec.decode(StateRecord.self, from: $0.record) }
        let profiles = try profiles().filter { Topic.profile(user: $0.user).hasPrefix(topicPrefix) }
        let pushTokens = try pushTokensRows()
            .filter { Topic.pushTokens(user: $0.user).hasPrefix(topicPrefix) }
            .map { UserPushTokens(user: $0.user, tokens: try codec.decode([WidgetPushToken].self, from: $0.tokens), version: $0.version) }
            .filter { !$0.tokens.isEmpty }
        return SnapshotBody(epoch: epoch, sequence: try lockSequence(), states: states, profiles: profiles, pushTokens: pushTokens)
    }
}
