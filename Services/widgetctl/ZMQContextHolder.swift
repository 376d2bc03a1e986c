import ZeroMQ

/// widgetctl's one ZeroMQ context, created on first use. A short-lived CLI never terminates it:
/// its sockets use linger 0, and process exit releases everything.
enum ZMQContextHolder {
    nonisolated(unsafe) private static var context: ZMQContext?

    static var shared: ZMQContext {
        get throws {
            if let context { return context }
            let created = try ZMQContext()
            context = created
            return created
        }
    }
}
