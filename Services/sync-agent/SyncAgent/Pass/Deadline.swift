import Synchronization

/// The work did not finish in time.
struct DeadlineExceeded: Error, CustomStringConvertible {
    let timeout: Duration
    var description: String { "timed out after \(timeout)" }
}

/// Runs `work` and returns its result, or throws ``DeadlineExceeded`` once `timeout` has passed —
/// even when the work ignores cancellation (a query stuck on a silent network). On timeout the
/// work is cancelled and left to end on its own; nothing waits for it.
///
/// A pass may therefore give up on an upsert that later commits. That is safe: nothing is
/// acknowledged for it, the records stay pending, and the next pass upserts them again, which
/// changes nothing (same id, same revision).
func withDeadline<Result: Sendable>(
    _ timeout: Duration, _ work: @escaping @Sendable () async throws -> Result
) async throws -> Result {
    let race = DeadlineRace<Result>()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            race.start(
                continuation,
                work: Task {
                    do { race.finish(.success(try await work())) } catch { race.finish(.failure(error)) }
                },
                timer: Task {
                    try? await Task.sleep(for: timeout)
                    race.finish(.failure(DeadlineExceeded(timeout: timeout)))
                })
        }
    } onCancel: {
        race.finish(.failure(CancellationError()))
    }
}

/// The first of work, timer and cancellation to finish resumes the caller and cancels the others.
private final class DeadlineRace<Result: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Result, any Error>?
        var outcome: Swift.Result<Result, any Error>?
        var tasks: [Task<Void, Never>] = []
    }

    private let state = Mutex(State())

    func start(_ continuation: CheckedContinuation<Result, any Error>, work: Task<Void, Never>, timer: Task<Void, Never>) {
        let early = state.withLock { state -> Swift.Result<Result, any Error>? in
            state.tasks = [work, timer]
            if let outcome = state.outcome { return outcome }
            state.continuation = continuation
            return nil
        }
        if let early {
            work.cancel()
            timer.cancel()
            continuation.resume(with: early)
        }
    }

    func finish(_ result: Swift.Result<Result, any Error>) {
        let (continuation, tasks) = state.withLock { state in
            if state.outcome == nil { state.outcome = result }
            defer { state.continuation = nil }
            return (state.continuation, state.continuation == nil ? [] : state.tasks)
        }
        guard let continuation else { return }
        for task in tasks { task.cancel() }
        continuation.resume(with: result)
    }
}
