import Foundation
import Logging
import Metrics
import Observability
import PostgresNIO
import PostgresStorage
import WidgetBusProtocol

/// Who this intent-handler is among the shards sharing one PostgreSQL store.
struct ShardIdentity: Sendable, Equatable {
    /// Unique among the shards: a slot's owner is named by it.
    var name: String
    /// The intents endpoint clients are sent to for this shard's users (`wrong_shard`).
    var endpoint: String
    /// How long a lease lasts unrenewed: the longest a dead shard's users wait for another
    /// shard, less the renewal interval.
    var lease: TimeInterval

    /// Leases are renewed three times per lease, so one late renewal loses nothing.
    var renewalInterval: TimeInterval { lease / 3 }
}

/// The slots this process owns, through lease rows in PostgreSQL that carry an epoch (a fencing
/// token). Every slot has one row: its owner, the epoch the owner took it in, and until when the
/// lease holds, in the server's clock, so that no two machines' clocks are compared.
///
/// The rules, each one statement or a few in one transaction:
/// - A shard renews its leases every ``ShardIdentity/renewalInterval``, only those still held in
///   the epoch it took them in, and only before they expired: a lease that expired — the process
///   was paused, or cut off from the server — is never renewed, only taken again, in a new epoch.
/// - Each live shard's share of the slots is even (by name order, the first shards take one more
///   when slots do not divide evenly). A shard above its share releases its highest slots; a
///   shard below it takes free or expired slots, lowest first, each in a new epoch (epoch + 1).
/// - Every transaction that touches a user's state first locks the rows of its users' slots
///   (`FOR SHARE`) and checks that this process holds each in its epoch and before its expiry
///   (``redirects(for:on:)``). A shard taking a slot locks its row `FOR UPDATE SKIP LOCKED`, so it
///   waits for no writer and takes no slot while a writer holds it: a write commits only while
///   its writer's lease holds, and a writer whose lease was taken refuses its users.
/// - A shard that takes slots moves its event sequence up to the highest sequence of any shard,
///   so a moved user's next version is above every version the previous owner gave
///   (docs/SCALING.md), and drops the states it holds in memory, which may predate the other
///   owner's changes.
final class SlotLeases {
    let shard: ShardIdentity
    /// This process among all that ever were shard ``ShardIdentity/name``: a name is held by one
    /// live process at a time (``claimName(on:)``).
    private let instance = UUID().uuidString
    /// The epoch of each slot this process holds.
    private(set) var owned: [Int: Int64] = [:]
    /// Slots taken since start: a change tells the processor its memory may be older than the store.
    private(set) var taken = 0
    private let logger: Logger
    private let slotsOwned = Gauge(MetricCatalog.shardSlotsOwned)
    private let moves = (
        taken: Counter(MetricCatalog.shardSlotMoves, ["change": "taken"]),
        released: Counter(MetricCatalog.shardSlotMoves, ["change": "released"]),
        lost: Counter(MetricCatalog.shardSlotMoves, ["change": "lost"]))

    init(shard: ShardIdentity, logger: Logger) {
        self.shard = shard
        self.logger = logger
    }

    static let schema = [
        """
        CREATE TABLE IF NOT EXISTS widgetbus.shard (
            name text PRIMARY KEY, endpoint text NOT NULL, alive_until timestamptz NOT NULL)
        """,
        "ALTER TABLE widgetbus.shard ADD COLUMN IF NOT EXISTS instance text",
        """
        CREATE TABLE IF NOT EXISTS widgetbus.slot_lease (
            slot integer PRIMARY KEY, owner text, epoch bigint NOT NULL, lease_until timestamptz NOT NULL)
        """,
        """
        INSERT INTO widgetbus.slot_lease (slot, owner, epoch, lease_until)
        SELECT slot, NULL, 0, '-infinity' FROM generate_series(0, \(UserSlot.count - 1)) AS slot ON CONFLICT DO NOTHING
        """,
    ]

    private var leaseEnd: String { "clock_timestamp() + \(Int(shard.lease * 1000)) * interval '1 millisecond'" }

    /// Makes this process shard ``ShardIdentity/name``, waiting for a process that held the
    /// name before (killed, its row not yet expired) to be gone: at most a lease and a renewal
    /// interval. Fails when another process keeps the name alive, so that two processes never
    /// take each other's slots under one name.
    func claimName(on connection: BlockingPostgresConnection) throws {
        let deadline = Date().addingTimeInterval(shard.lease + shard.renewalInterval)
        while true {
            if try connection.transaction({ try declareAlive(on: $0) }) { return }
            guard Date() < deadline else {
                throw NameInUse(
                    description: "another intent-handler, alive, is shard \(shard.name): WIDGETBUS_SHARD_NAME must be unique among the shards")
            }
            Thread.sleep(forTimeInterval: 0.25)
        }
    }

    struct NameInUse: Error, CustomStringConvertible {
        let description: String
    }

    /// Declares this process shard ``ShardIdentity/name`` for one more lease, unless another
    /// process holds the name alive; returns whether it did.
    private func declareAlive(on connection: BlockingPostgresConnection) throws -> Bool {
        try connection.changes(
            """
            INSERT INTO widgetbus.shard (name, endpoint, alive_until, instance)
            VALUES (\(shard.name), \(shard.endpoint), \(unescaped: leaseEnd), \(instance))
            ON CONFLICT (name) DO UPDATE SET endpoint = excluded.endpoint, alive_until = excluded.alive_until, instance = excluded.instance
            WHERE widgetbus.shard.instance IS NOT DISTINCT FROM excluded.instance OR widgetbus.shard.alive_until <= clock_timestamp()
            """) > 0
    }

    /// Declares this shard alive, renews its leases, and releases or takes slots toward its
    /// share: one transaction. A process whose name another process took while it was paused
    /// or cut off serves nobody.
    func maintain(on connection: BlockingPostgresConnection) throws {
        try connection.transaction { connection in
            guard try declareAlive(on: connection) else {
                if !owned.isEmpty { logger.error("another process took this shard's name \(shard.name): serving no users") }
                lose(Set(owned.keys))
                return
            }
            try renew(on: connection)
            let live = try connection.run(
                "SELECT name FROM widgetbus.shard WHERE alive_until > clock_timestamp() ORDER BY name COLLATE \"C\""
            ).map { try $0.decode(String.self) }
            let share = Self.share(of: shard.name, among: live)
            if owned.count > share {
                try release(owned.keys.sorted().suffix(owned.count - share), on: connection)
            } else if owned.count < share {
                try take(share - owned.count, on: connection)
            }
        }
        slotsOwned.record(owned.count)
    }

    /// How many slots `name` should hold while `live` shards (sorted, `name` among them) share them.
    static func share(of name: String, among live: [String]) -> Int {
        guard let position = live.firstIndex(of: name) else { return 0 }
        return UserSlot.count / live.count + (position < UserSlot.count % live.count ? 1 : 0)
    }

    private func renew(on connection: BlockingPostgresConnection) throws {
        guard !owned.isEmpty else { return }
        let slots = owned.keys.map { Int32($0) }
        let epochs = slots.map { owned[Int($0)]! }
        // Rows are locked in slot order, as every statement here locks them: no two can deadlock.
        let renewed = try connection.run(
            """
            UPDATE widgetbus.slot_lease SET lease_until = \(unescaped: leaseEnd)
            WHERE slot IN (
                SELECT lease.slot FROM widgetbus.slot_lease AS lease
                JOIN unnest(\(slots)::integer[], \(epochs)::bigint[]) AS mine(slot, epoch) ON lease.slot = mine.slot AND lease.epoch = mine.epoch
                WHERE lease.owner = \(shard.name) AND lease.lease_until > clock_timestamp()
                ORDER BY lease.slot FOR UPDATE OF lease)
            RETURNING slot
            """
        ).map { Int(try $0.decode(Int32.self)) }
        lose(Set(owned.keys).subtracting(renewed))
    }

    private func release(_ slots: some Collection<Int>, on connection: BlockingPostgresConnection) throws {
        let released = try connection.changes(
            """
            UPDATE widgetbus.slot_lease SET owner = NULL, lease_until = '-infinity'
            WHERE slot IN (
                SELECT slot FROM widgetbus.slot_lease WHERE slot = ANY(\(slots.map { Int32($0) })) AND owner = \(shard.name)
                ORDER BY slot FOR UPDATE)
            """)
        for slot in slots { owned[slot] = nil }
        moves.released.increment(by: released)
        logger.info("released slots toward an even share", metadata: ["widgetbus.shard.slots": "\(slots.count)"])
    }

    private func take(_ count: Int, on connection: BlockingPostgresConnection) throws {
        let mine = owned.keys.map { Int32($0) }
        let rows = try connection.run(
            """
            UPDATE widgetbus.slot_lease SET owner = \(shard.name), epoch = epoch + 1, lease_until = \(unescaped: leaseEnd)
            WHERE slot IN (
                SELECT slot FROM widgetbus.slot_lease
                WHERE (owner IS NULL OR owner = \(shard.name) OR lease_until <= clock_timestamp()) AND NOT slot = ANY(\(mine))
                ORDER BY slot LIMIT \(Int64(count)) FOR UPDATE SKIP LOCKED)
            RETURNING slot, epoch
            """
        ).map { try $0.decode((Int32, Int64).self) }
        guard !rows.isEmpty else { return }
        for (slot, epoch) in rows { owned[Int(slot)] = epoch }
        // Every version the previous owners gave is at most their sequence, committed before
        // their lease row could be locked here.
        try connection.run(
            "UPDATE widgetbus.bus_sequence SET value = (SELECT max(value) FROM widgetbus.bus_sequence) WHERE name = \(shard.name)")
        taken += rows.count
        moves.taken.increment(by: rows.count)
        logger.info("took slots", metadata: ["widgetbus.shard.slots": "\(rows.count)", "widgetbus.shard.owned": "\(owned.count)"])
    }

    private func lose(_ slots: Set<Int>) {
        guard !slots.isEmpty else { return }
        for slot in slots { owned[slot] = nil }
        moves.lost.increment(by: slots.count)
        slotsOwned.record(owned.count)
        logger.warning(
            "lost slots: their leases expired or another shard took them", metadata: ["widgetbus.shard.slots": "\(slots.count)"])
    }

    /// One slot's lease as a transaction reads it.
    typealias LeaseRow = (slot: Int32, owner: String?, epoch: Int64, current: Bool, endpoint: String?)

    /// The slots of `users`, as the lease query's argument.
    static func slots(of users: some Collection<String>) -> [Int32] {
        Set(users.map { UserSlot(user: $0).index }).map { Int32($0) }
    }

    /// The leases of the slots `$n` (an integer array) names, with their owners' endpoints, each
    /// row locked `FOR SHARE` until the transaction ends, in slot order; a query of its own or a
    /// part of one.
    static func leaseQuery(slots placeholder: String) -> String {
        """
        SELECT lease.slot, lease.owner, lease.epoch, lease.lease_until > clock_timestamp() AS current, shard.endpoint
        FROM widgetbus.slot_lease AS lease LEFT JOIN widgetbus.shard AS shard ON shard.name = lease.owner
        WHERE lease.slot = ANY(\(placeholder)) ORDER BY lease.slot FOR SHARE OF lease
        """
    }

    /// Where each of `users` belongs whose slot this process does not hold now; the slots it
    /// does hold stay locked until the transaction ends, so no shard takes them meanwhile.
    func redirects(for users: some Collection<String>, on connection: BlockingPostgresConnection) throws -> [String: ShardRedirect] {
        let slots = Self.slots(of: users)
        guard !slots.isEmpty else { return [:] }
        var binds = PostgresBindings()
        binds.append(slots)
        let rows = try connection.run(PostgresQuery(unsafeSQL: Self.leaseQuery(slots: "$1"), binds: binds))
        return try redirects(for: users, leases: rows.map { try $0.decode((Int32, String?, Int64, Bool, String?).self) })
    }

    /// Where each of `users` belongs whose slot this process does not hold, by the `leases` of
    /// their slots read (and locked) in the transaction.
    func redirects(for users: some Collection<String>, leases: [LeaseRow]) -> [String: ShardRedirect] {
        var elsewhere: [Int: ShardRedirect] = [:]
        var lost: Set<Int> = []
        for (slot, owner, epoch, current, endpoint) in leases {
            let index = Int(slot)
            if let mine = owned[index], owner == shard.name, epoch == mine, current { continue }
            if owned[index] != nil { lost.insert(index) }
            // A lease that expired, or our own name in an epoch we do not hold, names no owner.
            let holder = current && owner != shard.name ? owner : nil
            elsewhere[index] = ShardRedirect(slot: UserSlot(index: index), shard: holder, endpoint: holder == nil ? nil : endpoint)
        }
        lose(lost)
        let read = Set(leases.map { Int($0.slot) })
        var redirects: [String: ShardRedirect] = [:]
        for user in users {
            let slot = UserSlot(user: user)
            // A slot whose lease was not read is not held.
            if let redirect = elsewhere[slot.index] ?? (read.contains(slot.index) ? nil : ShardRedirect(slot: slot, shard: nil, endpoint: nil)) {
                redirects[user] = redirect
            }
        }
        return redirects
    }
}
