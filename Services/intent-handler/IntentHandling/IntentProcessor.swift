import BusRuntime
import Foundation
import Metrics
import Observability
import ServiceSupport
import Storage
import Tracing
import W3CTraceContext
import WidgetBusProtocol
import WidgetDomain

/// Turns routed requests into their replies and, when state changed, the events to publish —
/// committing them before any leaves the process. A drained burst of requests shares one
/// transaction (group commit: one commit instead of one per intent), each request in a savepoint
/// of its own so that one failing changes nothing of the others. Pure rules come from
/// WidgetDomain; this type only decodes, looks up, persists and encodes.
///
/// The states and profiles of the users active lately stay decoded in memory (bounded, least
/// recently used evicted): an intent reads its user's state from there, and the store — the
/// durable truth, read on a miss and after a restart — only takes writes. Memory changes only
/// after the transaction that made the change committed. The event sequence is kept here too,
/// stored once per transaction. A new state is encoded once; its stored row, reply and event
/// splice the same bytes.
final class IntentProcessor {
    /// What to send after the commit.
    struct Outcome {
        var reply: Data
        var event: Event?
        /// What the request changed, for memory once the transaction has committed.
        fileprivate var changes: [Change] = []
    }

    /// An event to publish once the transaction has committed, and the trace it continues.
    struct Event {
        var topic: String
        var sequence: UInt64
        var payload: Data
        var trace: TraceContext?
    }

    enum Endpoint {
        case intents, snapshot
    }

    fileprivate enum Change {
        case state(StateRecord)
        case profile(UserProfile)
    }

    private struct StateKey: Hashable {
        var user: String
        var app: WidgetApp
    }

    private let store: any StateStore
    private let codec: WireCodec
    /// The epoch of the publisher that sends this processor's events (``PublisherEpoch``).
    let epoch: String
    private let clock: any WallClock
    private var random: RandomSource
    /// Committed states of the users active lately, decoded (without their encoded bytes); a
    /// user's state not here is in the store.
    private var states: LeastRecentlyUsed<StateKey, StateRecord>
    /// Committed profiles of the same users; nil: the user has none (UTC).
    private var profiles: LeastRecentlyUsed<String, UserProfile?>
    private var timeZones: [String: TimeZone] = [:]
    /// Changes made by requests of the transaction in progress whose savepoints were released:
    /// later requests of the same burst read them; memory takes them at commit.
    private var uncommittedStates: [StateKey: StateRecord] = [:]
    private var uncommittedProfiles: [String: UserProfile] = [:]
    /// The last sequence number given to an event, and the last one stored.
    private var sequence: UInt64
    private var storedSequence: UInt64
    /// The store's count of slots taken as of the last transaction (``StateStore/slotsTaken``).
    private var slotsTaken: Int
    /// In the transaction in progress on a store shared by shards: the users whose slots were
    /// checked, and where those this shard does not hold belong. Nil on a store that holds
    /// every slot.
    private var placement: (checked: Set<String>, redirects: [String: ShardRedirect])?
    /// `widgetbus_intent_states_cached`: user states decoded in memory (at most the capacity).
    private let statesCached = Gauge(MetricCatalog.intentStatesCached)

    /// - Parameter capacity: how many user states (a user's state of one app) stay in memory.
    init(
        store: any StateStore, codec: WireCodec, epoch: String, capacity: Int,
        clock: any WallClock = SystemClock(), random: RandomSource = .system
    ) throws {
        self.store = store
        self.codec = codec
        self.epoch = epoch
        self.clock = clock
        self.random = random
        states = LeastRecentlyUsed(capacity: capacity)
        profiles = LeastRecentlyUsed(capacity: capacity)
        sequence = try store.write { try $0.lockSequence() }
        storedSequence = sequence
        slotsTaken = store.slotsTaken
    }

    /// The sequence of the last committed event.
    var lastSequence: UInt64 { storedSequence }

    /// The outcome of each message, in order, after one commit of all their effects. If the
    /// commit fails every request gets an `internal` error and no event; nothing is stored,
    /// unless a server store committed and its answer was lost — the next transaction finds out.
    func process(_ messages: [RoutedMessage], on endpoint: Endpoint) -> [Outcome] {
        defer {
            uncommittedStates.removeAll(keepingCapacity: true)
            uncommittedProfiles.removeAll(keepingCapacity: true)
            placement = nil
        }
        do {
            let outcomes = try store.write { db in
                let stored: UInt64
                if endpoint == .intents {
                    // Scanned only for a store that asks (a server store's one round trip).
                    lazy var fields = messages.compactMap { $0.payload.map(JSONFieldScanner.init) }
                    lazy var users = Set(fields.compactMap { $0.string("user") })
                    let start = try db.startBurst(ids: { fields.compactMap { $0.string("id") } }, users: { users })
                    stored = start.sequence
                    placement = start.redirects.map { (users, $0) }
                } else {
                    stored = try db.lockSequence()
                }
                if stored != storedSequence || store.slotsTaken != slotsTaken {
                    // Another session committed changes (a transaction of ours whose answer was
                    // lost, or another shard's before this one took its slots): memory may be
                    // older than the store, so it starts again from the store.
                    states.removeAll()
                    profiles.removeAll()
                    statesCached.record(0)
                    (sequence, storedSequence) = (stored, stored)
                    slotsTaken = store.slotsTaken
                }
                let outcomes = messages.map { process($0, on: endpoint, db: db) }
                if sequence != storedSequence { try db.saveSequence(sequence) }
                return outcomes
            }
            storedSequence = sequence
            for (key, record) in uncommittedStates { states.set(record.withoutEncodedState, for: key) }
            for (user, profile) in uncommittedProfiles { profiles.set(profile, for: user) }
            if !uncommittedStates.isEmpty { statesCached.record(states.count) }
            return outcomes
        } catch {
            sequence = storedSequence
            let failure = ProtocolError(.internalError, "the store could not commit: \(error)")
            return messages.map { Outcome(reply: codec.errorReply(toUndecodable: $0.payload ?? Data(), failure)) }
        }
    }

    private func process(_ message: RoutedMessage, on endpoint: Endpoint, db: any StateTransaction) -> Outcome {
        switch endpoint {
        case .intents:
            message.answer(as: IntentsRequest.self, codec: codec, reply: { Outcome(reply: $0) }) { try handle($0, db: db) }
        case .snapshot:
            message.answer(as: StateSnapshotRequest.self, codec: codec, reply: { Outcome(reply: $0) }) { try handle($0, db: db) }
        }
    }

    private func handle(_ request: IntentsRequest, db: any StateTransaction) throws -> Outcome {
        switch request.body {
        case .ping, .pendingUsers, .notServed: break
        default:
            if let user = request.user, let redirect = try redirect(for: user, db: db) {
                return Outcome(reply: codec.wrongShardReply(to: request, user: user, redirect))
            }
        }
        switch request.body {
        case .ping:
            return Outcome(reply: try codec.reply(to: request.id, user: request.user, type: .pong, body: EmptyBody()))
        case .intent(let intent):
            return try once(request, db) { now, trace in try apply(intent, of: request, db: db, now: now, trace: trace) }
        case .setTimeZone(let identifier):
            return try once(request, db) { now, trace in try setTimeZone(identifier, of: request, db: db, now: now, trace: trace) }
        case .registerPushToken(let registration):
            return try once(request, db) { now, trace in
                try changePushTokens(of: request, db: db, now: now, trace: trace) { $0.registering(registration) }
            }
        case .removePushToken(let token):
            return try once(request, db) { now, trace in
                try changePushTokens(of: request, db: db, now: now, trace: trace) { $0.removing(token) }
            }
        case .appForeground:
            return try once(request, db) { now, trace in try appForeground(of: request, db: db, now: now, trace: trace) }
        case .acknowledgeRecords(let acknowledgements):
            return try once(request, db) { now, _ in
                let cleared = try db.acknowledge(user: request.user!, acknowledgements)
                let body = AcknowledgeReplyBody(user: request.user!, cleared: cleared, kept: acknowledgements.count - cleared)
                return Outcome(reply: try codec.reply(to: request.id, user: request.user, type: .acknowledgeReply, body: body, now: now))
            }
        case .pendingRecords:
            let user = request.user!
            let records = try db.pendingRecords(user: user)
            let body = PendingRecordsBody(user: user, records: records)
            return Outcome(reply: try codec.reply(to: request.id, user: user, type: .pendingRecordsReply, body: body))
        case .pendingUsers:
            let body = PendingUsersBody(users: try db.pendingUsers())
            return Outcome(reply: try codec.reply(to: request.id, user: nil, type: .pendingUsersReply, body: body))
        case .notServed:
            return notServed(request)
        }
    }

    private func handle(_ request: StateSnapshotRequest, db: any StateTransaction) throws -> Outcome {
        switch request.body {
        case .ping:
            return Outcome(reply: try codec.reply(to: request.id, user: request.user, type: .pong, body: EmptyBody()))
        case .snapshot(let prefix):
            let snapshot = try db.snapshot(topicPrefix: prefix, epoch: epoch)
            return Outcome(reply: try codec.reply(to: request.id, user: nil, type: .snapshotReply, body: snapshot))
        case .notServed:
            return notServed(request)
        }
    }

    private func notServed(_ request: some DecodedRequest) -> Outcome {
        Outcome(reply: codec.notServedReply(to: request, "on this endpoint"))
    }

    /// Runs `change` exactly once per request id, in a savepoint with the reply it produces: a
    /// request id seen before (in an earlier burst or earlier in this one) gets its stored reply
    /// back and changes nothing, and a change that throws leaves nothing behind. The change runs
    /// in a span named for the request's type, continuing its trace (``MessageSpan``); `change`
    /// gets the trace its event continues.
    private func once(_ request: IntentsRequest, _ db: any StateTransaction, _ change: (Date, TraceContext?) throws -> Outcome) throws -> Outcome {
        let user = request.user!
        let now = clock.now
        if let handled = try db.handledRequest(id: request.id) {
            guard handled.user == user, handled.type == request.type.rawValue else {
                return Outcome(reply: codec.errorReply(
                    to: request.id, user: user, code: .idReused,
                    message: "id \(request.id) was already used by another request"))
            }
            return Outcome(reply: handled.reply)
        }
        let sequenceBefore = sequence
        let outcome: Outcome
        do {
            outcome = try MessageSpan.run(request.type.rawValue, continuing: request.trace, ofKind: .server) { trace in
                try db.inSavepoint {
                    let outcome = try change(now, trace)
                    try db.saveHandledRequest(id: request.id, user: user, type: request.type.rawValue, reply: outcome.reply, at: now)
                    return outcome
                }
            }
        } catch {
            sequence = sequenceBefore
            throw error
        }
        for change in outcome.changes {
            switch change {
            case .state(let record): uncommittedStates[StateKey(user: record.user, app: record.app)] = record
            case .profile(let profile): uncommittedProfiles[profile.user] = profile
            }
        }
        return outcome
    }

    /// Where `user`'s requests belong when this shard does not hold the user's slot.
    private func redirect(for user: String, db: any StateTransaction) throws -> ShardRedirect? {
        guard var placement else { return nil }
        if !placement.checked.contains(user) {
            // A user the burst's scan did not find: checked alone.
            placement.redirects.merge(try db.redirects(for: { [user] }) ?? [:]) { $1 }
            placement.checked.insert(user)
            self.placement = placement
        }
        return placement.redirects[user]
    }

    /// The committed state of `user`'s `app`, or the one a request of this transaction left.
    private func state(user: String, app: WidgetApp, db: any StateTransaction) throws -> StateRecord? {
        let key = StateKey(user: user, app: app)
        if let record = uncommittedStates[key] ?? states.value(for: key) { return record }
        // Read outside any change of this transaction (those are above), so it is committed.
        guard let stored = try db.state(user: user, app: app) else { return nil }
        states.set(stored, for: key)
        return stored
    }

    private func profile(user: String, db: any StateTransaction) throws -> UserProfile? {
        if let profile = uncommittedProfiles[user] { return profile }
        if let cached = profiles.value(for: user) { return cached }
        let stored = try db.profile(user: user)
        profiles.set(stored, for: user)
        return stored
    }

    private func timeZone(user: String, db: any StateTransaction) throws -> TimeZone {
        guard let identifier = try profile(user: user, db: db)?.timeZone else { return .gmt }
        if let zone = timeZones[identifier] { return zone }
        let zone = UserTimeZone.zone(named: identifier) ?? .gmt
        timeZones[identifier] = zone
        return zone
    }

    private func nextSequence() -> UInt64 {
        sequence += 1
        return sequence
    }

    private func apply(_ intent: WidgetIntent, of request: IntentsRequest, db: any StateTransaction, now: Date, trace: TraceContext?) throws -> Outcome {
        let user = request.user!
        let current = try state(user: user, app: intent.app, db: db)
            ?? StateRecord(user: user, app: intent.app, version: 0, state: .initial(for: intent.app))
        let timeZone = try timeZone(user: user, db: db)
        var context = ReduceContext(now: now, timeZone: timeZone, random: random)
        defer { random = context.random }

        let transition: Transition<WidgetState>
        do {
            transition = try current.state.reduce(intent, context: &context)
        } catch {
            return Outcome(reply: codec.errorReply(
                to: request.id, user: user, code: ErrorCode(rawValue: error.code), message: error.message))
        }
        guard transition.state != current.state || !transition.records.isEmpty else {
            let body = StateReplyBody(record: current, openURL: transition.openURL)
            return Outcome(reply: try codec.reply(to: request.id, user: user, type: .stateReply, body: body, now: now))
        }
        let sequence = nextSequence()
        let record = try StateRecord(user: user, app: intent.app, version: sequence, state: transition.state)
            .encodingStateOnce()
        try db.saveState(record)
        for pending in transition.records {
            try db.savePendingRecord(user: user, record: pending, revision: sequence, at: now)
        }
        let body = StateReplyBody(record: record, openURL: transition.openURL)
        return Outcome(
            reply: try codec.reply(to: request.id, user: user, type: .stateReply, body: body, now: now),
            event: try event(
                .stateChanged, topic: Topic.state(app: intent.app, user: user), sequence: sequence, of: request, now: now, trace: trace,
                body: StateChangedBody(epoch: epoch, sequence: sequence, causedBy: request.id, record: record)),
            changes: [.state(record)])
    }

    /// Publishes `AppForegrounded` (what starts a sync of the user's records) and answers with
    /// the records waiting for that sync.
    private func appForeground(of request: IntentsRequest, db: any StateTransaction, now: Date, trace: TraceContext?) throws -> Outcome {
        let user = request.user!
        let sequence = nextSequence()
        let pending = PendingRecordsBody(user: user, records: try db.pendingRecords(user: user))
        return Outcome(
            reply: try codec.reply(to: request.id, user: user, type: .pendingRecordsReply, body: pending, now: now),
            event: try event(
                .appForegrounded, topic: Topic.appForegrounded(user: user), sequence: sequence, of: request, now: now, trace: trace,
                body: AppForegroundedBody(epoch: epoch, sequence: sequence, causedBy: request.id, user: user)))
    }

    private func setTimeZone(_ identifier: String, of request: IntentsRequest, db: any StateTransaction, now: Date, trace: TraceContext?) throws -> Outcome {
        let user = request.user!
        guard UserTimeZone.zone(named: identifier) != nil else {
            return Outcome(reply: codec.errorReply(
                to: request.id, user: user, code: .invalidTimeZone,
                message: "\(identifier) is not a time zone identifier of the tz database"))
        }
        if let current = try profile(user: user, db: db), current.timeZone == identifier {
            return Outcome(reply: try codec.reply(to: request.id, user: user, type: .profileReply, body: current, now: now))
        }
        let profile = UserProfile(user: user, timeZone: identifier, version: nextSequence())
        try db.saveProfile(profile)
        return Outcome(
            reply: try codec.reply(to: request.id, user: user, type: .profileReply, body: profile, now: now),
            event: try event(
                .profileChanged, topic: Topic.profile(user: user), sequence: profile.version, of: request, now: now, trace: trace,
                body: ProfileChangedBody(epoch: epoch, sequence: profile.version, causedBy: request.id, profile: profile)),
            changes: [.profile(profile)])
    }

    /// Replaces the user's push tokens with what `change` makes of them and publishes
    /// `PushTokensChanged`; when that is what they already are, answers with them unchanged.
    private func changePushTokens(
        of request: IntentsRequest, db: any StateTransaction, now: Date, trace: TraceContext?, _ change: (UserPushTokens) -> [WidgetPushToken]
    ) throws -> Outcome {
        let user = request.user!
        let current = try db.pushTokens(user: user) ?? UserPushTokens(user: user, tokens: [], version: 0)
        let tokens = change(current)
        guard tokens != current.tokens else {
            return Outcome(reply: try codec.reply(to: request.id, user: user, type: .pushTokensReply, body: current, now: now))
        }
        let changed = UserPushTokens(user: user, tokens: tokens, version: nextSequence())
        try db.savePushTokens(changed)
        return Outcome(
            reply: try codec.reply(to: request.id, user: user, type: .pushTokensReply, body: changed, now: now),
            event: try event(
                .pushTokensChanged, topic: Topic.pushTokens(user: user), sequence: changed.version, of: request, now: now, trace: trace,
                body: PushTokensChangedBody(epoch: epoch, sequence: changed.version, causedBy: request.id, pushTokens: changed)))
    }

    /// The event `request` caused, in `trace`: the request's, continued by its span.
    private func event(
        _ type: MessageType, topic: String, sequence: UInt64, of request: IntentsRequest, now: Date, trace: TraceContext?,
        body: some Encodable & Sendable
    ) throws -> Event {
        var envelope = Envelope(type: type.rawValue, user: request.user, sentAt: now, body: body)
        envelope.trace = trace
        return Event(topic: topic, sequence: sequence, payload: try codec.encode(envelope), trace: trace)
    }
}
