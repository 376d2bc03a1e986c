import Foundation
import Synchronization
import Testing

/// Runs each test of a suite on one of a few threads kept for tests that block, never on Swift's
/// concurrency pool: `@Suite(.blockingThreads)`.
///
/// Most integration tests are synchronous: they start processes, poll their logs, wait for exits
/// and read sockets, each wait blocking the thread it runs on. On the pool (one thread per core)
/// two such tests stop every async test of the process — an AsyncHTTPClient response nobody
/// reads times out, an in-process server answers nothing — for as long as they block, tens of
/// seconds on a loaded machine. Here they block threads of their own instead, one fewer than
/// there are cores (``BlockingTestThreads/shared``).
struct BlockingTestThreadsTrait: SuiteTrait, TestTrait, TestScoping {
    var isRecursive: Bool { true }

    /// Each test case in its own scope; the suite as a whole needs none.
    func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        testCase == nil ? nil : self
    }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let thread = await BlockingTestThreads.shared.acquire()
        defer { BlockingTestThreads.shared.release(thread) }
        try await withTaskExecutorPreference(thread) {
            try await function()
        }
    }
}

extension Trait where Self == BlockingTestThreadsTrait {
    /// See ``BlockingTestThreadsTrait``.
    static var blockingThreads: Self { BlockingTestThreadsTrait() }
}

/// The threads blocking tests run on, one test at a time each; a test waits (suspended, not
/// blocking) for one to be free.
final class BlockingTestThreads: Sendable {
    /// One thread fewer than the cores: the pool's threads run the async tests beside them, and
    /// a thread for each core (four tests at once on two cores) started services slower than
    /// their tests wait for.
    static let shared = BlockingTestThreads(count: max(1, ProcessInfo.processInfo.activeProcessorCount - 1))

    private struct State {
        var free: [TestThread]
        var waiting: [CheckedContinuation<TestThread, Never>] = []
    }

    private let state: Mutex<State>

    private init(count: Int) {
        state = Mutex(State(free: (0..<count).map { TestThread(name: "blocking-test-\($0)") }))
    }

    func acquire() async -> TestThread {
        await withCheckedContinuation { continuation in
            let thread: TestThread? = state.withLock { state in
                guard let thread = state.free.popLast() else {
                    state.waiting.append(continuation)
                    return nil
                }
                return thread
            }
            if let thread { continuation.resume(returning: thread) }
        }
    }

    func release(_ thread: TestThread) {
        let waiter: CheckedContinuation<TestThread, Never>? = state.withLock { state in
            guard !state.waiting.isEmpty else {
                state.free.append(thread)
                return nil
            }
            return state.waiting.removeFirst()
        }
        waiter?.resume(returning: thread)
    }
}

/// A thread that runs the jobs of the tasks preferring it (`withTaskExecutorPreference`), in the
/// order they come.
final class TestThread: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    /// Guarded by `condition`.
    private var jobs: [UnownedJob] = []

    init(name: String) {
        let thread = Thread { [unowned self] in self.runJobs() }
        thread.name = name
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func runJobs() {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
