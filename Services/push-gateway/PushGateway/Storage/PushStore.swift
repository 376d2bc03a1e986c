import Foundation
import GRDB
import ServiceSupport
import WidgetDomain

/// push-gateway's durable memory: what each widget showed last (so a change made while the
/// gateway was stopped is still seen as one) and every token's schedule (so a push that was due,
/// or in flight, is not forgotten, and pushes already sent keep counting against the budget).
/// Written in one transaction after each turn that changed something, before any push of that
/// turn is sent. The tokens themselves are intent-handler's, and re-synced from it at start.
final class PushStore {
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
        try migrator.migrate(database.queue)
    }

    /// Everything stored, to start a planner from.
    func load() throws -> (shown: [WidgetReplicas.Widget: ShownTimeline], schedules: [String: TokenPushSchedule]) {
        try database.queue.read { db in
            var shown: [WidgetReplicas.Widget: ShownTimeline] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT user, kind, timeline FROM shown_timeline") {
                guard let kind = WidgetKind(rawValue: row["kind"]) else { continue }
                shown[WidgetReplicas.Widget(user: row["user"], kind: kind)] = try decoder.decode(ShownTimeline.self, from: row["timeline"])
            }
            var schedules: [String: TokenPushSchedule] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT token, schedule FROM token_schedule") {
                schedules[row["token"]] = try decoder.decode(TokenPushSchedule.self, from: row["schedule"])
            }
            return (shown, schedules)
        }
    }

    /// Stores the timelines and schedules given (a schedule of nil is deleted), in one transaction.
    func save(shown: [WidgetReplicas.Widget: ShownTimeline], schedules: [String: TokenPushSchedule?]) throws {
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
