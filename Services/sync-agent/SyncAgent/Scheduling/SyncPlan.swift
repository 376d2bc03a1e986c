import Foundation
import Logging
import ServiceSupport
import WidgetBusProtocol

/// Which user's pass runs when: the sync scheduler's decisions as a value, fed one event at a time
/// with the time it happened, answering with what to do. No tasks, no clock, no sockets:
/// ``SyncScheduler`` performs the actions, a test reads them.
///
/// The rules: at most `concurrency` passes at once and at most one per user; a trigger for a
/// user whose pass is running makes it run once more afterwards (records added meanwhile are
/// picked up), except a sweep's, which the running pass covers; a failed pass backs the user off
/// (``RetryBackoff``) and sweeps and foreground triggers skip them until the retry is due, while
/// an explicit `SyncRequest` always runs; a retried `SyncRequest` (same id, new route) is answered
/// once, on its newest route. After ``Event/shutdown`` no pass starts, queued requests are
/// answered `unavailable`, the passes in hand have ``shutdownGrace`` to finish before they are
/// cancelled (a pass cut short acknowledges nothing, so its records stay pending for the next
/// start), and the plan is finished once they have all reported.
struct SyncPlan {
    /// How long the passes in hand may go on after a shutdown: short enough that sync-agent stops
    /// within two seconds whatever its database is doing, long enough for a pass against a healthy
    /// one to finish.
    static let shutdownGrace: Duration = .seconds(1)

    enum Event: Sendable {
        case trigger(BusTrigger)
        case sweepDue
        case sweepFound([String])
        case retryDue(user: String)
        case finished(user: String, SyncResult)
        case shutdown
        /// ``shutdownGrace`` has passed since the shutdown.
        case shutdownGraceOver
    }

    enum Action: Sendable {
        /// Run one pass for the user and report it as ``Event/finished(user:_:)``.
        case runPass(user: String)
        /// List the users with pending records and report them as ``Event/sweepFound(_:)``.
        case sweep
        /// Hand this to the bus.
        case deliver(BusDelivery)
        /// Report ``Event/retryDue(user:)`` after `delay`.
        case retry(user: String, after: Duration)
        /// Report ``Event/shutdownGraceOver`` after `delay`.
        case endGrace(after: Duration)
        /// Cancel the passes in hand; each still reports, as a failed pass.
        case cancelPasses
    }

    private struct UserState {
        var running = false
        var queued = false
        /// A trigger arrived while the pass ran: run again afterwards.
        var rerun = false
        /// `SyncRequest`s the next pass answers.
        var waiting: [ReplyRoute] = []
        /// `SyncRequest`s the running pass answers.
        var answering: [ReplyRoute] = []
        var consecutiveFailures = 0
        /// Set while backing off after a failure.
        var nextAttemptAt: Date?
    }

    let concurrency: Int
    let backoff: RetryBackoff
    let logger: Logger

    private var users: [String: UserState] = [:]
    private var ready: [String] = []
    private(set) var running = 0
    private var sweeping = false
    private var draining = false

    init(concurrency: Int, backoff: RetryBackoff, logger: Logger) {
        self.concurrency = max(1, concurrency)
        self.backoff = backoff
        self.logger = logger
    }

    /// Shut down and every pass in hand has reported.
    var isFinished: Bool { draining && running == 0 }

    /// What to do about `event`, which happened at `now`. `jitter` (0…1) draws a failed user's
    /// backoff delay.
    mutating func handle(_ event: Event, now: Date, jitter: Double = .random(in: 0...1)) -> [Action] {
        var actions: [Action] = []
        switch event {
        case .trigger(.foreground(let user)):
            request(user, explicit: false, rerunIfRunning: true, now: now)
        case .trigger(.syncNow(let user, let reply)):
            guard !draining else {
                return [.deliver(.error([reply], user: user, code: .unavailable, message: "sync-agent is stopping"))]
            }
            var state = users[user, default: UserState()]
            if let index = state.answering.firstIndex(where: { $0.requestID == reply.requestID }) {
                state.answering[index] = reply
                users[user] = state
                return []
            }
            if let index = state.waiting.firstIndex(where: { $0.requestID == reply.requestID }) {
                state.waiting[index] = reply
            } else {
                state.waiting.append(reply)
            }
            users[user] = state
            request(user, explicit: true, rerunIfRunning: true, now: now)
        case .sweepDue:
            guard !draining, !sweeping else { return [] }
            sweeping = true
            return [.sweep]
        case .sweepFound(let found):
            sweeping = false
            guard !draining else { return [] }
            for user in found { request(user, explicit: false, rerunIfRunning: false, now: now) }
        case .retryDue(let user):
            guard !draining, let due = users[user]?.nextAttemptAt, due <= now else { return [] }
            request(user, explicit: false, rerunIfRunning: false, now: now)
        case .finished(let user, let result):
            actions += finished(user, result, now: now, jitter: jitter)
        case .shutdown:
            guard !draining else { return [] }
            draining = true
            if running > 0 { actions.append(.endGrace(after: Self.shutdownGrace)) }
            for user in ready {
                let waiting = users[user]?.waiting ?? []
                users[user]?.waiting = []
                users[user]?.queued = false
                if !waiting.isEmpty {
                    actions.append(.deliver(.error(waiting, user: user, code: .unavailable, message: "sync-agent is stopping")))
                }
            }
            ready.removeAll()
        case .shutdownGraceOver:
            return running > 0 ? [.cancelPasses] : []
        }
        return actions + startReadyPasses()
    }

    /// Queues a pass for `user` unless one is queued already. A running user runs again afterwards
    /// if `rerunIfRunning`; a user backing off is skipped unless the request is `explicit`.
    private mutating func request(_ user: String, explicit: Bool, rerunIfRunning: Bool, now: Date) {
        guard !draining else { return }
        var state = users[user, default: UserState()]
        defer { users[user] = state }
        if state.running {
            if rerunIfRunning { state.rerun = true }
            return
        }
        if state.queued { return }
        if !explicit, let due = state.nextAttemptAt, due > now {
            logger.debug(
                "backing off; trigger deferred to the retry",
                metadata: ["widgetbus.user": "\(user)", "widgetbus.next_attempt_at": "\(due)"])
            return
        }
        state.queued = true
        ready.append(user)
    }

    private mutating func startReadyPasses() -> [Action] {
        var actions: [Action] = []
        while running < concurrency, !draining, !ready.isEmpty {
            let user = ready.removeFirst()
            var state = users[user, default: UserState()]
            state.queued = false
            state.running = true
            state.rerun = false
            state.answering = state.waiting
            state.waiting = []
            users[user] = state
            running += 1
            actions.append(.runPass(user: user))
        }
        return actions
    }

    private mutating func finished(_ user: String, _ result: SyncResult, now: Date, jitter: Double) -> [Action] {
        var actions: [Action] = []
        running -= 1
        var result = result
        var state = users[user, default: UserState()]
        state.running = false
        if result.succeeded {
            state.consecutiveFailures = 0
            state.nextAttemptAt = nil
        } else {
            state.consecutiveFailures += 1
            let delay = backoff.delay(afterFailures: state.consecutiveFailures, unit: jitter)
            let due = now.addingTimeInterval(delay.asSeconds)
            state.nextAttemptAt = due
            result.nextAttemptAt = due
            if !draining { actions.append(.retry(user: user, after: delay)) }
        }
        actions.append(.deliver(.result(result, replies: state.answering)))
        state.answering = []
        if draining, !state.waiting.isEmpty {
            actions.append(.deliver(.error(state.waiting, user: user, code: .unavailable, message: "sync-agent is stopping")))
            state.waiting = []
        }
        let rerun = state.rerun || !state.waiting.isEmpty
        state.rerun = false
        let explicit = !state.waiting.isEmpty
        users[user] = state
        if rerun {
            request(user, explicit: explicit, rerunIfRunning: false, now: now)
        }
        return actions
    }

    /// How many passes in a row have failed for `user`.
    func consecutiveFailures(of user: String) -> Int {
        users[user]?.consecutiveFailures ?? 0
    }
}
