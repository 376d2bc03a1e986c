import Foundation
import WidgetBusProtocol
import WidgetDomain

/// The sync target's tables: one per record collection, the record's fields as columns plus
/// `user_id` and `revision` (intent-handler's revision of the record).
///
/// ``ddl`` is the one copy of the schema: sync-agent runs it at start on either backend, and
/// `deploy/postgres/001_widget_records.sql` is the same text (`sync-agent --print-schema` prints
/// it; a test checks the file). It is written in the SQL both PostgreSQL and SQLite accept.
public enum TargetSchema {
    public static let ddl = """
        -- WidgetBus sync target: the records widgets produce, pushed by sync-agent.
        --
        -- sync-agent runs exactly these statements at start (they are idempotent), on PostgreSQL
        -- (Supabase included) and on its embedded SQLite default alike. To prepare a Supabase
        -- project by hand, run this file in the SQL editor or with psql. sync-agent connects as a
        -- role that may write these tables; if the project exposes them through its API, enable
        -- row level security and add policies as for any other table.
        --
        -- Rows are keyed by the record id. `revision` is intent-handler's revision of the record:
        -- sync-agent's upsert never replaces a row with an older revision, so a late or repeated
        -- pass cannot undo a newer one. `synced_at` is when the row was last written.

        CREATE TABLE IF NOT EXISTS stress_check_ins (
            id TEXT PRIMARY KEY,
            user_id TEXT NOT NULL,
            revision BIGINT NOT NULL,
            tension_level INTEGER NOT NULL,
            suggested_intervention_id TEXT,
            intervention_completed BOOLEAN NOT NULL,
            created_at TIMESTAMPTZ NOT NULL,
            synced_at TIMESTAMPTZ NOT NULL DEFAULT CURRENT_TIMESTAMP
        );

        CREATE INDEX IF NOT EXISTS stress_check_ins_user_id ON stress_check_ins (user_id);

        CREATE TABLE IF NOT EXISTS food_logs (
            id TEXT PRIMARY KEY,
            user_id TEXT NOT NULL,
            revision BIGINT NOT NULL,
            food_id TEXT NOT NULL,
            name TEXT NOT NULL,
            quantity DOUBLE PRECISION NOT NULL,
            unit TEXT NOT NULL,
            calories DOUBLE PRECISION NOT NULL,
            protein DOUBLE PRECISION NOT NULL,
            carbs DOUBLE PRECISION NOT NULL,
            fat DOUBLE PRECISION NOT NULL,
            day_key TEXT NOT NULL,
            logged_at TIMESTAMPTZ NOT NULL,
            synced_at TIMESTAMPTZ NOT NULL DEFAULT CURRENT_TIMESTAMP
        );

        CREATE INDEX IF NOT EXISTS food_logs_user_id ON food_logs (user_id);

        CREATE TABLE IF NOT EXISTS drink_sessions (
            id TEXT PRIMARY KEY,
            user_id TEXT NOT NULL,
            revision BIGINT NOT NULL,
            started_at TIMESTAMPTZ NOT NULL,
            completed_at TIMESTAMPTZ NOT NULL,
            elapsed_seconds INTEGER NOT NULL,
            synced_at TIMESTAMPTZ NOT NULL DEFAULT CURRENT_TIMESTAMP
        );

        CREATE INDEX IF NOT EXISTS drink_sessions_user_id ON drink_sessions (user_id);

        """

    /// ``ddl`` as single statements, for drivers that run one statement per query (postgres-nio's
    /// extended protocol). Comments stay attached to the statement that follows them.
    static let statements: [String] = ddl.components(separatedBy: ";\n").compactMap { chunk in
        let code = chunk.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("--") }
        return code.allSatisfy({ $0.trimmingCharacters(in: .whitespaces).isEmpty }) ? nil : chunk
    }

    /// Rows per INSERT statement: far below both PostgreSQL's 65,535 and SQLite's 32,766 bound
    /// parameters at 14 columns.
    static let rowsPerStatement = 200

    /// The upsert of `rowCount` rows into `table`: keyed by id, and only over a row whose revision
    /// is not newer. `placeholder(n)` spells the n-th (1-based) parameter in the backend's dialect.
    static func upsertSQL(_ table: TargetTable, rowCount: Int, placeholder: (Int) -> String) -> String {
        let columns = table.columns
        var parameter = 0
        let rows = (0..<rowCount).map { _ in
            "(" + columns.map { _ in
                parameter += 1
                return placeholder(parameter)
            }.joined(separator: ", ") + ")"
        }
        let updates = columns.dropFirst().map { "\($0) = excluded.\($0)" } + ["synced_at = CURRENT_TIMESTAMP"]
        return """
            INSERT INTO \(table.rawValue) (\(columns.joined(separator: ", "))) VALUES \(rows.joined(separator: ", ")) \
            ON CONFLICT (id) DO UPDATE SET \(updates.joined(separator: ", ")) \
            WHERE \(table.rawValue).revision <= excluded.revision
            """
    }

    /// `rows` as statements: grouped by table (in a fixed order) and cut into chunks of at most
    /// ``rowsPerStatement``.
    static func batches(_ rows: [TargetRow]) -> [(table: TargetTable, rows: ArraySlice<TargetRow>)] {
        TargetTable.allCases.flatMap { table -> [(table: TargetTable, rows: ArraySlice<TargetRow>)] in
            let ofTable = rows.filter { $0.table == table }
            return stride(from: 0, to: ofTable.count, by: rowsPerStatement).map { start in
                (table, ofTable[start..<min(start + rowsPerStatement, ofTable.count)])
            }
        }
    }
}

/// A table of the sync target: a record collection.
enum TargetTable: String, CaseIterable, Sendable {
    case stressCheckIns = "stress_check_ins"
    case foodLogs = "food_logs"
    case drinkSessions = "drink_sessions"

    /// Upserted columns, in bind order; `id` first (the conflict key), `synced_at` is set by SQL.
    var columns: [String] {
        let common = ["id", "user_id", "revision"]
        switch self {
        case .stressCheckIns:
            return common + ["tension_level", "suggested_intervention_id", "intervention_completed", "created_at"]
        case .foodLogs:
            return common + ["food_id", "name", "quantity", "unit", "calories", "protein", "carbs", "fat", "day_key", "logged_at"]
        case .drinkSessions:
            return common + ["started_at", "completed_at", "elapsed_seconds"]
        }
    }
}

/// A value bound to an upsert, independent of the backend.
enum SQLValue: Sendable, Equatable {
    case text(String)
    case integer(Int64)
    case real(Double)
    case boolean(Bool)
    case timestamp(Date)
    case null
}

/// One pending record as a row of its table, with the revision it was read at.
struct TargetRow: Sendable, Equatable {
    var table: TargetTable
    var id: String
    var revision: UInt64
    /// Aligned with `table.columns`.
    var values: [SQLValue]

    init(user: String, _ revised: RevisedRecord) {
        id = revised.record.id
        revision = revised.revision
        let common: [SQLValue] = [.text(revised.record.id), .text(user), .integer(Int64(clamping: revised.revision))]
        switch revised.record {
        case .tensionCheckIn(let checkIn):
            table = .stressCheckIns
            values = common + [
                .integer(Int64(checkIn.tensionLevel)), checkIn.suggestedInterventionId.map(SQLValue.text) ?? .null,
                .boolean(checkIn.interventionCompleted), .timestamp(checkIn.createdAt),
            ]
        case .foodLog(let entry):
            table = .foodLogs
            values = common + [
                .text(entry.foodId), .text(entry.name), .real(entry.quantity), .text(entry.unit), .real(entry.calories),
                .real(entry.protein), .real(entry.carbs), .real(entry.fat), .text(entry.dayKey.rawValue),
                .timestamp(entry.loggedAt),
            ]
        case .finishedDrink(let drink):
            table = .drinkSessions
            values = common + [.timestamp(drink.startedAt), .timestamp(drink.completedAt), .integer(Int64(drink.elapsedSeconds))]
        }
    }

    var acknowledgement: RecordAcknowledgement {
        RecordAcknowledgement(collection: table.rawValue, id: id, revision: revision)
    }
}
