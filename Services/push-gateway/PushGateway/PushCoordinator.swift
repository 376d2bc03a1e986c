import Foundation
import Logging
import Metrics
import Observability
import WidgetBusProtocol

/// What push-gateway does with each thing it learns, on the bus thread: token changes and
/// published timelines go to the ``PushPlanner``, due pushes come out of it, and APNs's answers
/// go back into it. Every step is stored (``PushStore``) before it is acted on: a push taken is
/// in flight in the store before it is sent, and a batch of answers is committed before the
/// token removals they call for are asked. It does no I/O of its own beyond the store: the
/// service sends what it returns.
final class PushCoordinator {
    private var planner: PushPlanner
    private let store: PushStore
    private let retries: PushRetryPolicy
    private let logger: Logger
    private let metrics = PushMetrics()
    /// Failed sends in a row, by token, for the retry delay.
    private var failures: [String: Int] = [:]
    /// What changed since the last commit: widgets' timelines remembered, schedules changed or gone.
    private var changedShown: [UserWidget: ShownTimeline] = [:]
    private var changedSchedules: Set<String> = []

    /// Starts from what `store` holds at `now`. A push in flight when the gateway stopped may
    /// have reached APNs or not: it is due again. A token refused for another topic than
    /// `topic`, the one pushes go to now, is pushed again.
    init(store: PushStore, budget: PushBudget, retries: PushRetryPolicy, topic: String?, now: Date, logger: Logger) throws {
        let stored = try store.load()
        for token in stored.schedules.filter({ $0.value.inFlight != nil }).keys.sorted() {
            logger.notice("a push in flight when push-gateway stopped is sent again: resent \(token.prefix(8))…", metadata: PushGatewayService.metadata(token))
        }
        var schedules = stored.schedules
        if let topic {
            for token in schedules.keys where schedules[token]?.liftRefusal(unlessFor: topic) == true { changedSchedules.insert(token) }
        }
        if !changedSchedules.isEmpty {
            logger.notice("push tokens APNs refused for another topic are pushed again", metadata: ["widgetbus.tokens": "\(changedSchedules.count)"])
        }
        planner = PushPlanner(budget: budget, now: now, shown: stored.shown, schedules: schedules)
        self.store = store
        self.retries = retries
        self.logger = logger
    }

    /// Takes what a turn brought: token changes first (a timeline of a user whose token just
    /// arrived is then read), then the latest timeline of each widget. Only a user with a token
    /// has widgets worth reading: the others' timelines are skipped unread, and a widget is first
    /// remembered once its user has a token. Committed.
    func take(tokenChanges: [PushTokenDirectory.Change], timelines: [UserWidget: JSONFieldScanner], at now: Date) throws {
        for change in tokenChanges {
            switch change {
            case .user(let user): changedSchedules.formUnion(planner.tokensChanged(user: user.user, user.tokens))
            case .all(let all): changedSchedules.formUnion(planner.replaceTokens(all))
            }
        }
        for (widget, body) in timelines where planner.hasTokens(user: widget.user) {
            guard let timeline = ShownTimeline(timelineBody: body) else { continue }
            for change in planner.published(timeline, for: widget, at: now) {
                metrics.changes[change.outcome.label]?.increment()
                if change.outcome != .coveredByTimeline { changedSchedules.insert(change.token) }
            }
            changedShown[widget] = timeline
        }
        try commit()
    }

    /// When the next push falls due, if one is waiting.
    var nextDue: Date? { planner.nextDue }

    /// Pushes waiting to be sent, widgets remembered and tokens with a schedule, for the logs.
    var counts: (waiting: Int, widgets: Int, schedules: Int) {
        (planner.waiting, planner.shown.count, planner.schedules.count)
    }

    /// The pushes due at `now`, at most `limit`, stored as in flight before they are returned: a
    /// push sent is never forgotten.
    func takeDue(at now: Date, limit: Int) throws -> [OutgoingPush] {
        let (pushes, changed) = planner.takeDue(at: now, limit: limit)
        changedSchedules.formUnion(changed)
        try commit()
        return pushes
    }

    /// APNs's answers to the pushes sent, committed. Returns, for each token APNs calls gone, the
    /// users to remove it from (intent-handler, the tokens' only writer, removes it).
    func answered(_ answers: [PushSends.Outcome], at now: Date) throws -> [(token: String, users: [String])] {
        var gone: [(token: String, users: [String])] = []
        for answer in answers {
            if let users = answered(answer.token, answer.outcome, seconds: answer.seconds, at: now) { gone.append((answer.token, users)) }
        }
        try commit()
        return gone
    }

    /// One answer; the users holding the token when APNs calls it gone.
    private func answered(_ token: String, _ outcome: PushOutcome, seconds: Double, at now: Date) -> [String]? {
        metrics.sent[outcome.label]?.increment()
        if outcome != .dryRun { metrics.duration.recordSeconds(seconds) }
        changedSchedules.insert(token)
        if case .retry(let reason, let after) = outcome {
            let count = (failures[token] ?? 0) + 1
            failures[token] = count
            let delay = retries.delay(afterFailures: count, retryAfter: after)
            planner.retry(token, at: now.addingTimeInterval(delay))
            logger.warning(
                "push not delivered: retrying",
                metadata: PushGatewayService.metadata(token, ["widgetbus.reason": "\(reason)", "widgetbus.retry_in": "\(delay) s"]))
            return nil
        }
        // Answered for good: delivered, logged, or refused.
        failures[token] = nil
        planner.answered(token)
        switch outcome {
        case .tokenGone(let reason):
            logger.notice("APNs refused a push token: removing it", metadata: PushGatewayService.metadata(token, ["widgetbus.reason": "\(reason)"]))
            return planner.holders(of: token)
        case .tokenRefused(let reason, let topic):
            // Logged once: nothing more is sent to the token, so APNs has nothing more to refuse.
            logger.error(
                "APNs refused a push token for good: sending it nothing more, keeping its registration",
                metadata: PushGatewayService.metadata(token, ["widgetbus.reason": "\(reason)", "widgetbus.topic": "\(topic)"]))
            planner.refused(token, TokenPushSchedule.Refusal(reason: reason, topic: topic))
            metrics.tokensRefused[reason]?.increment()
        case .refused(let status, let reason):
            logger.error(
                "APNs refused a push", metadata: PushGatewayService.metadata(token, ["widgetbus.status": "\(status)", "widgetbus.reason": "\(reason)"]))
        case .delivered, .dryRun, .retry:
            break
        }
        return nil
    }

    /// Stores what changed since the last commit, in one transaction.
    private func commit() throws {
        try store.save(shown: changedShown, schedules: Dictionary(changedSchedules.map { ($0, planner.schedules[$0]) }) { $1 })
        if !changedSchedules.isEmpty { metrics.waiting.record(planner.waiting) }
        changedShown.removeAll(keepingCapacity: true)
        changedSchedules.removeAll(keepingCapacity: true)
    }
}

/// What push-gateway reports (docs/OBSERVABILITY.md).
private struct PushMetrics {
    let changes = Dictionary(uniqueKeysWithValues: ["scheduled", "joined", "covered"].map {
        ($0, Counter(MetricCatalog.pushChanges, ["result": $0]))
    })
    let sent = Dictionary(uniqueKeysWithValues: ["delivered", "token_gone", "retry", "refused", "dry_run"].map {
        ($0, Counter(MetricCatalog.pushesSent, ["result": $0]))
    })
    let tokensRefused = Dictionary(uniqueKeysWithValues: APNsClient.tokenRefusals.map {
        ($0, Counter(MetricCatalog.pushTokensRefused, ["reason": $0]))
    })
    let duration = Timer(MetricCatalog.pushDuration)
    let waiting = Gauge(MetricCatalog.pushesWaiting)
}
