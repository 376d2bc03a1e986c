import Synchronization
import ZeroMQ

/// A command-line tool's one ZeroMQ context, created on first use. A short-lived tool never
/// terminates it: its sockets use linger 0, and process exit releases everything.
public enum ZMQContextHolder {
    private static let context = Mutex<ZMQContext?>(nil)

    public static var shared: ZMQContext {
        get throws {
            try context.withLock { context in
                if let context { return context }
                let created = try ZMQContext()
                context = created
                return created
            }
        }
    }
}
