import Foundation
import Logging
import ServiceSupport
import WidgetBusProtocol

/// The sync retry loop: decides when each user's pass runs.
///
/// Passes are triggered by `AppForegrounded` events, by a periodic sweep over the users
/// intent-handler lists as having pending records (every `WIDGETBUS_SYNC_INTERVAL`, and once at
/// start), by `SyncRequest` (run now, answer with the result) and by a user's own retry timer
/// after a failed pass. A failed pass backs the user off (``SyncBackoff``): sweeps and foreground
/// triggers skip them until the retry is due; an explicit `SyncRequest` always runs.
///
/// Everything arrives as an ``Event`` on one `AsyncStream` and is handled one event at a time in
/// ``run()``, which alone owns the per-user state — no locks and no actor. Passes run as child
/// tasks of a task group, at most `concurrency` at once and at most one per user (a trigger for a
/// user whose pass is running makes it run once more afterwards, so records added meanwhile are
/// picked up); each reports back through the same stream.
///
/// On graceful shutdown (``Event/shutdown``) it starts no new pass, answers queued requests with
/// `unavailable`, waits for the passes in hand to finish and returns.
final class SyncScheduler {
    enum Event: Sendable {
        case trigger(BusTrigger)
        case sweepDue
        case sweepFound([String])
        case retryDue(user: String)
        case finished(user: String, SyncResult)
        case shutdown
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

    private let pass: SyncPass
    private let bus: SyncBus
    private let events: AsyncStream<Event>
    private let continuation: AsyncStream<Event>.Continuation
    private let sweepInterval: Duration
    private let backoff: SyncBackoff
    private let concurrency: Int
    private let logger: Logger

    private var users: [String: UserState] = [:]
    private var ready: [String] = []
    private var running = 0
    private var sweeping = false
    private var draining = false

    init(
        pass: SyncPass, bus: SyncBus, events: AsyncStream<Event>, continuation: AsyncStream<Event>.Continuation,
        sweepInterval: Duration, backoff: SyncBackoff, concurrency: Int, logger: Logger
    ) {
        self.pass = pass
        self.bus = bus
        self.events = events
        self.continuation = continuation
        self.sweepInterval = sweepInterval
        self.backoff = backoff
        self.concurrency = max(1, concurrency)
        self.logger = logger
    }

    func run() async {
        do {
            try await pass.prepareSchemaIfNeeded()
            logger.info("sync target ready", metadata: ["widgetbus.target": "\(pass.target.description)"])
        } catch {
            logger.warning(
                "sync target not ready; passes will retry creating the schema",
                metadata: ["widgetbus.target": "\(pass.target.description)", "widgetbus.error": "\(error)"])
        }
        await withDiscardingTaskGroup { group in
            let continuation = self.continuation
            let interval = sweepInterval
            group.addTask {
                repeat {
                    continuation.yield(.sweepDue)
                    try? await Task.sleep(for: interval)
                } while !Task.isCancelled
            }
            for await event in events {
                handle(event, group: &group)
                startReadyPasses(group: &group)
                if draining, running == 0 { break }
            }
            group.cancelAll()
        }
        logger.info("sync scheduler stopped")
    }

    private func handle(_ event: Event, group: inout DiscardingTaskGroup) {
        switch event {
        case .trigger(.foreground(let user)):
            logger.debug("app foregrounded", metadata: ["widgetbus.user": "\(user)"])
            request(user, explicit: false, rerunIfRunning: true)
        case .trigger(.syncNow(let user, let reply)):
            guard !draining else {
                bus.deliver(.error([reply], user: user, code: .unavailable, message: "sync-agent is stopping"))
                return
            }
            var state = users[user, default: UserState()]
            // A Lazy Pirate retry of the same request: answer it on its new route, no extra pass.
            if let index = state.answering.firstIndex(where: { $0.requestID == reply.requestID }) {
                state.answering[index] = reply
                users[user] = state
                return
            }
            if let index = state.waiting.firstIndex(where: { $0.requestID == reply.requestID }) {
                state.waiting[index] = reply
            } else {
                state.waiting.append(reply)
            }
            users[user] = state
            request(user, explicit: true, rerunIfRunning: true)
        case .sweepDue:
            guard !draining, !sweeping else { return }
            sweeping = true
            let pass = self.pass, continuation = self.continuation, logger = self.logger
            group.addTask {
                do {
                    continuation.yield(.sweepFound(try await pass.pendingUsers()))
                } catch {
                    logger.warning("sweep could not list pending users", metadata: ["widgetbus.error": "\(SyncPass.describe(error))"])
                    continuation.yield(.sweepFound([]))
                }
            }
        case .sweepFound(let found):
            sweeping = false
            guard !draining else { return }
            if !found.isEmpty { logger.debug("sweep", metadata: ["widgetbus.users": "\(found.count)"]) }
            for user in found { request(user, explicit: false, rerunIfRunning: false) }
        case .retryDue(let user):
            guard !draining, let due = users[user]?.nextAttemptAt, due <= Date() else { return }
            request(user, explicit: false, rerunIfRunning: false)
        case .finished(let user, let result):
            finished(user, result, group: &group)
        case .shutdown:
            draining = true
            for user in ready {
                let waiting = users[user]?.waiting ?? []
                users[user]?.waiting = []
                users[user]?.queued = false
                if !waiting.isEmpty {
                    bus.deliver(.error(waiting, user: user, code: .unavailable, message: "sync-agent is stopping"))
                }
            }
            ready.removeAll()
            logger.info("sync scheduler draining", metadata: ["widgetbus.running": "\(running)"])
        }
    }

    /// Queues a pass for `user` unless one is queued already. A running user runs again afterwards
    /// if `rerunIfRunning`; a user backing off is skipped unless the request is `explicit`.
    private func request(_ user: String, explicit: Bool, rerunIfRunning: Bool) {
        guard !draining else { return }
        var state = users[user, default: UserState()]
        defer { users[user] = state }
        if state.running {
            if rerunIfRunning { state.rerun = true }
            return
        }
        if state.queued { return }
        if !explicit, let due = state.nextAttemptAt, due > Date() {
            logger.debug("backing off; trigger deferred to the retry", metadata: ["widgetbus.user": "\(user)", "widgetbus.next_attempt_at": "\(due)"])
            return
        }
        state.queued = true
        ready.append(user)
    }

    private func startReadyPasses(group: inout DiscardingTaskGroup) {
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
            let pass = self.pass, continuation = self.continuation
            group.addTask {
                continuation.yield(.finished(user: user, await pass.run(user: user)))
            }
        }
    }

    private func finished(_ user: String, _ result: SyncResult, group: inout DiscardingTaskGroup) {
        running -= 1
        var result = result
        var state = users[user, default: UserState()]
        state.running = false
        if result.succeeded {
            state.consecutiveFailures = 0
            state.nextAttemptAt = nil
        } else {
            state.consecutiveFailures += 1
            let delay = backoff.delay(afterFailures: state.consecutiveFailures)
            let due = Date().addingTimeInterval(delay.asSeconds)
            state.nextAttemptAt = due
            result.nextAttemptAt = due
            if !draining {
                let continuation = self.continuation
                group.addTask {
                    try? await Task.sleep(for: delay)
                    if !Task.isCancelled { continuation.yield(.retryDue(user: user)) }
                }
            }
        }
        bus.deliver(.result(result, replies: state.answering))
        state.answering = []
        if draining, !state.waiting.isEmpty {
            bus.deliver(.error(state.waiting, user: user, code: .unavailable, message: "sync-agent is stopping"))
            state.waiting = []
        }
        let rerun = state.rerun || !state.waiting.isEmpty
        state.rerun = false
        users[user] = state
        log(result, failures: state.consecutiveFailures)
        if rerun {
            request(user, explicit: !state.waiting.isEmpty, rerunIfRunning: false)
        }
    }

    private func log(_ result: SyncResult, failures: Int) {
        var metadata: Logger.Metadata = [
            "widgetbus.user": "\(result.user)", "widgetbus.pushed": "\(result.pushed)", "widgetbus.kept_pending": "\(result.keptPending)",
            "widgetbus.failures": "\(result.failures.count)", "widgetbus.duration_ms": "\(result.durationMilliseconds)",
        ]
        if let next = result.nextAttemptAt {
            metadata["widgetbus.next_attempt_at"] = "\(WireDate.format(next))"
            metadata["widgetbus.consecutive_failures"] = "\(failures)"
            metadata["widgetbus.first_error"] = "\(result.failures.first?.error ?? "")"
            logger.warning("sync pass failed", metadata: metadata)
        } else if result.pushed > 0 || result.keptPending > 0 {
            logger.info("sync pass", metadata: metadata)
        } else {
            logger.debug("sync pass", metadata: metadata)
        }
    }
}
