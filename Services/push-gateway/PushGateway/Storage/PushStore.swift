import Foundation
import GRDB
import Storage
import WidgetBusProtocol
import WidgetDomain

/// push-gateway's durable memory: what each widget showed last (so a change made while the
/// gateway was stopped is still seen as one) and every token's schedule (so a push that was due,
/// or in flight, is not forgotten, and pushes already sent keep counting against the budget).
/// Written in one transaction after each turn that changed something, before any push of that
/// turn is sent. The tokens themselves are intent-handler's, and re-synced from it at start. The
/// provider token signed last is kept too (``providerTokens``).
final class PushStore: Sendable {
    let database: SQLiteDatabase
    private let encoder = JSONEncoder()
    private let decoder = JSONDecoder()

    init(path: String) throws {
        database = try SQLiteDatabase(path: path)
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE shown_timeline (
                        user TEXT NOT NULL, kind TEXT NOT NULL, timeline BLOB NOT NULL, PRIMARY KEY (user, kind)) WITHOUT ROWID;
                    CREATE TABLE token_schedule (token TEXT PRIMARY KEY NOT NULL, schedule BLOB NOT NULL) WITHOUT ROWID;
                    """)
        }
        migrator.registerMigration("v2: provider token") { db in
            try db.execute(sql: "CREATE TABLE provider_token (id INTEGER PRIMARY KEY CHECK (id = 1), token TEXT NOT NULL)")
        }
        try migrator.migrate(database.queue)
    }

    /// The provider token kept in this store, for the APNs client.
    var providerTokens: ProviderTokenStore { ProviderTokenStore(database: database) }

    /// Everything stored, to start a planner from.
    func load() throws -> (shown: [UserWidget: ShownTimeline], schedules: [String: TokenPushSchedule]) {
        try database.queue.read { db in
            var shown: [UserWidget: ShownTimeline] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT user, kind, timeline FROM shown_timeline") {
                guard let kind = WidgetKind(rawValue: row["kind"]) else { continue }
                shown[UserWidget(user: row["user"], kind: kind)] = try decoder.decode(ShownTimeline.self, from: row["timeline"])
            }
            var schedules: [String: TokenPushSchedule] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT token, schedule FROM token_schedule") {
                schedules[row["token"]] = try decoder.decode(TokenPushSchedule.self, from: row["schedule"])
            }
            return (shown, schedules)
        }
    }

    /// Stores the timelines and schedules given (a schedule of nil is deleted), in one transaction.
    func save(shown: [UserWidget: ShownTimeline], schedules: [String: TokenPushSchedule?]) throws {
        guard !shown.isEmpty || !schedules.isEmpty else { return }
        try database.write { db in
            let saveTimeline = try db.cachedStatement(sql: "INSERT OR REPLACE INTO shown_timeline (user, kind, timeline) VALUES (?, ?, ?)")
            for (widget, timeline) in shown {
                try saveTimeline.execute(arguments: [widget.user, widget.kind.rawValue, try encoder.encode(timeline)])
            }
            let saveSchedule = try db.cachedStatement(sql: "INSERT OR REPLACE INTO token_schedule (token, schedule) VALUES (?, ?)")
            let deleteSchedule = try db.cachedStatement(sql: "DELETE FROM token_schedule WHERE token = ?")
            for (token, schedule) in schedules {
                if let schedule {
                    try saveSchedule.execute(arguments: [token, try encoder.encode(schedule)])
                } else {
                    try deleteSchedule.execute(arguments: [token])
                }
            }
        }
    }
}

/// The provider token push-gateway signed last, kept in its store so that the next start reuses
/// it (``APNsProviderToken/init(credentials:reusing:at:)``) instead of replacing it: APNs refuses
/// a provider that replaces its token more often than every 20 minutes, as a gateway restarting
/// in a loop would. One row, written when a token is signed (at most every 20 minutes), read at
/// start; from the APNs client's tasks, through the store's one connection.
public struct ProviderTokenStore: Sendable {
    let database: SQLiteDatabase

    /// The token kept, if any.
    func load() throws -> String? {
        try database.queue.read { db in try String.fetchOne(db, sql: "SELECT token FROM provider_token WHERE id = 1") }
    }

    /// Keeps `token` in place of the one kept before.
    func save(_ token: String) throws {
        try database.write { db in try db.execute(sql: "INSERT OR REPLACE INTO provider_token (id, token) VALUES (1, ?)", arguments: [token]) }
    }
}
