import Foundation
import ServiceLifecycle
import Synchronization

/// A flag a blocking loop checks between polls to learn that it should finish.
public final class StopSignal: Sendable {
    private let requested = Atomic<Bool>(false)

    public init() {}

    public func request() {
        requested.store(true, ordering: .releasing)
    }

    public var isRequested: Bool {
        requested.load(ordering: .acquiring)
    }
}

/// Runs blocking work (libzmq polls, SQLite commits) on a thread of its own, never on the Swift
/// concurrency pool, and bridges its end back to async code.
public enum DedicatedThread {
    /// Runs `body` on a new thread and returns its result. Graceful shutdown (SIGTERM/SIGINT via
    /// ServiceGroup) or task cancellation request a stop; `body` is expected to notice within
    /// one poll interval, finish the message in hand and return.
    public static func run<Result: Sendable>(
        name: String,
        _ body: @escaping @Sendable (StopSignal) throws -> Result
    ) async throws -> Result {
        let stop = StopSignal()
        return try await withGracefulShutdownHandler {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    let thread = Thread {
                        continuation.resume(with: Swift.Result { try body(stop) })
                    }
                    thread.name = name
                    thread.start()
                }
            } onCancel: {
                stop.request()
            }
        } onGracefulShutdown: {
            stop.request()
        }
    }
}
