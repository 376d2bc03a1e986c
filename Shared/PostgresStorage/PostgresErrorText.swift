import PostgresNIO

/// What a PostgreSQL failure says that is safe to log: postgres-nio's `PSQLError` hides its
/// details from `description` on purpose (they may hold a query's data), so a service that
/// printed it would say only "generic description". The error's code, its underlying (network)
/// error, and a server error's SQLSTATE, message and detail carry no bound values.
public enum PostgresErrorText {
    public static func describe(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return "\(error)" }
        guard error.code == .server, let info = error.serverInfo, let state = info[.sqlState] else {
            let underlying = error.underlying.map { ": \($0)" } ?? ""
            return "PostgreSQL \(error.code)\(underlying)"
        }
        var message = "SQLSTATE \(state): \(info[.message] ?? "server error")"
        if let detail = info[.detail] { message += " (\(detail))" }
        return message
    }
}
