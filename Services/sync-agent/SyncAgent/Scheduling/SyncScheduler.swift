import Foundation
import Logging
import ServiceSupport
import WidgetBusProtocol

/// The sync retry loop: runs each user's pass when ``SyncPlan`` decides.
///
/// Passes are triggered by `AppForegrounded` events, by a periodic sweep over the users
/// intent-handler lists as having pending records (every `WIDGETBUS_SYNC_INTERVAL`, and once at
/// start), by `SyncRequest` (run now, answer with the result) and by a user's own retry timer
/// after a failed pass. A failed pass backs the user off (``RetryBackoff``): sweeps and foreground
/// triggers skip them until the retry is due; an explicit `SyncRequest` always runs.
///
/// Everything arrives as an event on one `AsyncStream` and is handed to the plan one event at a
/// time in ``run()``, which alone owns it — no locks and no actor. The plan's decisions are
/// carried out here: passes, sweeps and retry timers as child tasks of a task group (each reports
/// back through the same stream), deliveries to the bus.
///
/// On graceful shutdown (``Event/shutdown``) it starts no new pass, answers queued requests with
/// `unavailable`, gives the passes in hand ``SyncPlan/shutdownGrace`` to finish, cancels the rest
/// and returns. The target's schema is prepared beside the events, not before them, so a
/// database that does not answer never holds up a shutdown.
final class SyncScheduler {
    typealias Event = SyncPlan.Event

    private let pass: SyncPass
    private let deliver: @Sendable (BusDelivery) -> Void
    private let events: AsyncStream<Event>
    private let continuation: AsyncStream<Event>.Continuation
    private let sweepInterval: Duration
    private let logger: Logger
    private var plan: SyncPlan

    /// - Parameter deliver: hands a result or an error reply to the bus thread.
    init(
        pass: SyncPass, deliver: @escaping @Sendable (BusDelivery) -> Void, events: AsyncStream<Event>,
        continuation: AsyncStream<Event>.Continuation, sweepInterval: Duration, backoff: RetryBackoff, concurrency: Int,
        logger: Logger
    ) {
        self.pass = pass
        self.deliver = deliver
        self.events = events
        self.continuation = continuation
        self.sweepInterval = sweepInterval
        self.logger = logger
        plan = SyncPlan(concurrency: concurrency, backoff: backoff, logger: logger)
    }

    func run() async {
        await withDiscardingTaskGroup { group in
            let continuation = self.continuation
            let interval = sweepInterval
            let pass = self.pass, logger = self.logger
            // The schema first, then a sweep at once and every interval. (A pass a trigger starts
            // meanwhile prepares the schema itself.)
            group.addTask {
                do {
                    try await pass.prepareSchemaIfNeeded()
                    logger.info("sync target ready", metadata: ["widgetbus.target": "\(pass.target.description)"])
                } catch {
                    logger.warning(
                        "sync target not ready; passes will retry creating the schema",
                        metadata: ["widgetbus.target": "\(pass.target.description)", "widgetbus.error": "\(error)"])
                }
                while !Task.isCancelled {
                    continuation.yield(.sweepDue)
                    try? await Task.sleep(for: interval)
                }
            }
            for await event in events {
                log(event)
                for action in plan.handle(event, now: Date()) {
                    perform(action, group: &group)
                }
                if plan.isFinished { break }
            }
            group.cancelAll()
        }
        logger.info("sync scheduler stopped")
    }

    private func perform(_ action: SyncPlan.Action, group: inout DiscardingTaskGroup) {
        let pass = self.pass, continuation = self.continuation, logger = self.logger
        switch action {
        case .runPass(let user):
            group.addTask {
                continuation.yield(.finished(user: user, await pass.run(user: user)))
            }
        case .sweep:
            group.addTask {
                do {
                    continuation.yield(.sweepFound(try await pass.pendingUsers()))
                } catch {
                    logger.warning("sweep could not list pending users", metadata: ["widgetbus.error": "\(SyncPass.describe(error))"])
                    continuation.yield(.sweepFound([]))
                }
            }
        case .retry(let user, let delay):
            group.addTask {
                try? await Task.sleep(for: delay)
                if !Task.isCancelled { continuation.yield(.retryDue(user: user)) }
            }
        case .endGrace(let delay):
            group.addTask {
                try? await Task.sleep(for: delay)
                if !Task.isCancelled { continuation.yield(.shutdownGraceOver) }
            }
        case .cancelPasses:
            logger.info("sync passes cut short by the shutdown", metadata: ["widgetbus.running": "\(plan.running)"])
            group.cancelAll()
        case .deliver(let delivery):
            if case .result(let result, _) = delivery { log(result, failures: plan.consecutiveFailures(of: result.user)) }
            deliver(delivery)
        }
    }

    private func log(_ event: Event) {
        switch event {
        case .trigger(.foreground(let user)):
            logger.debug("app foregrounded", metadata: ["widgetbus.user": "\(user)"])
        case .sweepFound(let found) where !found.isEmpty:
            logger.debug("sweep", metadata: ["widgetbus.users": "\(found.count)"])
        case .shutdown:
            logger.info("sync scheduler draining", metadata: ["widgetbus.running": "\(plan.running)"])
        default:
            break
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
