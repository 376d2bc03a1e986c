import Foundation
import Logging
import Metrics
import ServiceSupport
import WidgetBusProtocol
import ZeroMQ

/// Wakes the widgets on users' devices with WidgetKit pushes when their content changes, within
/// WidgetKit's budget (docs/PUSH.md). It follows intent-handler's push tokens and
/// timeline-service's published timelines (both Clone-pattern replicas), decides with
/// ``PushPlanner``, stores what it decided (``PushStore``) before sending anything, sends through
/// a ``PushSender`` off the bus thread, and takes the outcomes back through a mailbox. A token
/// APNs calls gone is removed through intent-handler (`RemoveWidgetPushToken`), which stays the
/// only writer of tokens.
public struct PushGatewayService: BusService {
    public struct Configuration: Sendable {
        var stateEventsEndpoint: String
        var stateSnapshotEndpoint: String
        var timelineEventsEndpoint: String
        var timelinesEndpoint: String
        var intentsEndpoint: String
        var databasePath: String
        var budget: PushBudget
        var retries = PushRetryPolicy()
        /// It binds nothing: only its connections, with CURVE when configured.
        var binding: BusBinding

        public init(environment: [String: String]) throws {
            stateEventsEndpoint = BusEndpoint.stateEvents.resolve(in: environment)
            stateSnapshotEndpoint = BusEndpoint.stateSnapshot.resolve(in: environment)
            timelineEventsEndpoint = BusEndpoint.timelineEvents.resolve(in: environment)
            timelinesEndpoint = BusEndpoint.timelines.resolve(in: environment)
            intentsEndpoint = BusEndpoint.intents.resolve(in: environment)
            databasePath = (EnvironmentSetting.dataDirectory.resolve(in: environment) as NSString).appendingPathComponent("push-gateway.sqlite")
            budget = PushBudget(
                coalescingDelay: try EnvironmentSetting.pushCoalescingDelay.seconds(in: environment, range: 0...3_600).asSeconds,
                minimumInterval: try EnvironmentSetting.pushMinimumInterval.seconds(in: environment, range: 0...86_400).asSeconds,
                dailyLimit: try EnvironmentSetting.pushDailyLimit.integer(in: environment, range: 1...1_000))
            binding = try BusBinding(connectingIn: environment)
        }
    }

    /// How long a removal request waits for intent-handler's reply before it is sent again.
    static let removalTimeout: TimeInterval = 2
    /// Pushes sent and not yet answered, at most: a restart with many pushes due does not start
    /// them all at once, and async-http-client's queue stays short of its request timeout.
    static let maxSendsInFlight = 256
    /// How long a stop waits for the answers to the pushes in flight: APNs answers within a
    /// second, and a service stops within two whatever its peers do; a push not answered by then
    /// is sent again after the restart.
    static let stopWaitForAnswers: Duration = .milliseconds(1_500)
    /// How long the state events rest after each turn that takes some: the gateway reads only the
    /// token events among them, and a token change may wait that long.
    static let stateEventPacing: TimeInterval = 0.02
    /// How long the timeline events rest after each turn that takes some: a push waits seconds for
    /// its coalescing delay and APNs anyway, and a flood of events is then taken in a few turns.
    static let timelineEventPacing: TimeInterval = 0.05

    let configuration: Configuration
    let store: PushStore
    let sender: any PushSender
    let logger: Logger

    public var name: String { "push-gateway" }
    public var binding: BusBinding { configuration.binding }

    /// Log metadata naming a push token by its first 8 hex digits: enough to follow one device
    /// through the logs, too little to push to it.
    static func metadata(_ token: String, _ more: Logger.Metadata = [:]) -> Logger.Metadata {
        more.merging(["widgetbus.push_token": "\(token.prefix(8))…"]) { $1 }
    }

    init(configuration: Configuration, store: PushStore, sender: any PushSender, logger: Logger) {
        self.configuration = configuration
        self.store = store
        self.sender = sender
        self.logger = logger
    }

    public func start(on bus: Bus) throws {
        let stored = try store.load()
        // Pushes in flight when the gateway stopped may have reached APNs or not: they go again.
        for token in stored.schedules.filter({ $0.value.inFlight != nil }).keys.sorted() {
            logger.notice("a push in flight when push-gateway stopped is sent again: resent \(token.prefix(8))…", metadata: Self.metadata(token))
        }
        // A token refused for another topic than the one pushes go to now is pushed again.
        var schedules = stored.schedules
        var lifted: Set<String> = []
        if let topic = sender.topic {
            for token in schedules.keys where schedules[token]?.liftRefusal(unlessFor: topic) == true { lifted.insert(token) }
        }
        if !lifted.isEmpty {
            logger.notice("push tokens APNs refused for another topic are pushed again", metadata: ["widgetbus.tokens": "\(lifted.count)"])
        }
        var planner = PushPlanner(budget: configuration.budget, now: bus.clock.now, shown: stored.shown, schedules: schedules)
        let metrics = PushMetrics()
        var tokenChanges: [PushTokenDirectory.Change] = []
        // The latest timeline of each widget not yet planned for, scanned (kept by widget: while
        // the tokens have not synced, re-syncs of the timelines replace what they brought before).
        var published: [WidgetReplicas.Widget: JSONFieldScanner] = [:]
        let tokens = try SequencedReplica(
            PushTokenDirectory(), bus: bus, eventsEndpoint: configuration.stateEventsEndpoint,
            snapshotEndpoint: configuration.stateSnapshotEndpoint, pacing: Self.stateEventPacing, logger: logger
        ) { tokenChanges += $0 }
        let timelines = try SequencedReplica(
            PublishedWidgetTimelines(), bus: bus, eventsEndpoint: configuration.timelineEventsEndpoint,
            snapshotEndpoint: configuration.timelinesEndpoint, pacing: Self.timelineEventPacing, logger: logger
        ) { for timeline in $0 { published[timeline.widget] = timeline.timeline } }
        let removals = try TokenRemovals(bus: bus, intentsEndpoint: configuration.intentsEndpoint, logger: logger)
        let outcomes = try BusMailbox<(token: String, outcome: PushOutcome, seconds: Double)>()
        var failures: [String: Int] = [:]

        // What changed since the last commit: timelines remembered, schedules changed or gone.
        var changedShown: [WidgetReplicas.Widget: ShownTimeline] = [:]
        var changedSchedules = lifted
        func commit() throws {
            try store.save(shown: changedShown, schedules: Dictionary(changedSchedules.map { ($0, planner.schedules[$0]) }) { $1 })
            if !changedSchedules.isEmpty { metrics.waiting.record(planner.waiting) }
            changedShown.removeAll(keepingCapacity: true)
            changedSchedules.removeAll(keepingCapacity: true)
        }

        bus.afterMessages { now in
            // Nothing is decided before the tokens are known: a change to a widget of a user whose
            // tokens are not read yet would be missed. Timelines wait meanwhile.
            guard tokens.snapshotCount > 0 else { return }
            for change in tokenChanges {
                switch change {
                case .user(let user): changedSchedules.formUnion(planner.tokensChanged(user: user.user, user.tokens))
                case .all(let all): changedSchedules.formUnion(planner.replaceTokens(all))
                }
            }
            tokenChanges.removeAll()
            // Only a user with a token has widgets worth reading: the others' timelines are skipped
            // unread, and a widget is first remembered once its user has a token.
            for (widget, body) in published where planner.hasTokens(user: widget.user) {
                guard let timeline = ShownTimeline(timelineBody: body) else { continue }
                for change in planner.published(timeline, for: widget, at: now) {
                    metrics.changes[change.outcome.label]?.increment()
                    if change.outcome != .coveredByTimeline { changedSchedules.insert(change.token) }
                }
                changedShown[widget] = timeline
            }
            published.removeAll()
            try commit()
        }

        // Each push is stored as in flight before it is sent: a push sent is never forgotten.
        // At most maxSendsInFlight at once: the next are taken when answers make room (a turn
        // follows every answer, through the mailbox).
        let sending = SendsInFlight()
        bus.timer(dueAt: { tokens.snapshotCount > 0 && sending.count < Self.maxSendsInFlight ? planner.nextDue : nil }) { now in
            let (pushes, changed) = planner.takeDue(at: now, limit: Self.maxSendsInFlight - sending.count)
            changedSchedules.formUnion(changed)
            try commit()
            for push in pushes {
                sending.started()
                Task { [sender] in
                    let start = ContinuousClock.now
                    let outcome = await sender.send(push)
                    outcomes.post((push.token, outcome, (ContinuousClock.now - start).asSeconds))
                    sending.finished()
                }
            }
        }
        // On stop, the pushes in flight get their answers (for a moment) before the mailbox's last
        // delivery below commits them: a stop is not a kill, and sends nothing twice.
        bus.onStop { _ in
            sending.waitUntilNone(timeout: Self.stopWaitForAnswers)
        }

        let clock = bus.clock
        bus.receive(from: outcomes) { answers in
            let now = clock.now
            for (token, outcome, seconds) in answers {
                metrics.sent[outcome.label]?.increment()
                if outcome != .dryRun { metrics.duration.recordSeconds(seconds) }
                guard case .retry(let reason, let after) = outcome else {
                    // Answered for good: delivered, logged, or refused.
                    failures[token] = nil
                    planner.answered(token)
                    if case .tokenGone(let reason) = outcome {
                        logger.notice("APNs refused a push token: removing it", metadata: Self.metadata(token, ["widgetbus.reason": "\(reason)"]))
                        try removals.remove(token, of: planner.holders(of: token), now: now)
                    } else if case .tokenRefused(let reason, let topic) = outcome {
                        // Logged once: nothing more is sent to the token, so APNs has nothing more to refuse.
                        logger.error(
                            "APNs refused a push token for good: sending it nothing more, keeping its registration",
                            metadata: Self.metadata(token, ["widgetbus.reason": "\(reason)", "widgetbus.topic": "\(topic)"]))
                        planner.refused(token, TokenPushSchedule.Refusal(reason: reason, topic: topic))
                        metrics.tokensRefused[reason]?.increment()
                    } else if case .refused(let status, let reason) = outcome {
                        logger.error(
                            "APNs refused a push", metadata: Self.metadata(token, ["widgetbus.status": "\(status)", "widgetbus.reason": "\(reason)"]))
                    }
                    changedSchedules.insert(token)
                    continue
                }
                let count = (failures[token] ?? 0) + 1
                failures[token] = count
                let delay = configuration.retries.delay(afterFailures: count, retryAfter: after)
                planner.retry(token, at: now.addingTimeInterval(delay))
                logger.warning(
                    "push not delivered: retrying", metadata: Self.metadata(token, ["widgetbus.reason": "\(reason)", "widgetbus.retry_in": "\(delay) s"]))
                changedSchedules.insert(token)
            }
            try commit()
        }

        logger.info(
            "push-gateway ready",
            metadata: [
                "widgetbus.budget": "\(configuration.budget.coalescingDelay) s delay, \(configuration.budget.minimumInterval) s interval, \(configuration.budget.dailyLimit) a day",
                "widgetbus.widgets_remembered": "\(stored.shown.count)", "widgetbus.schedules": "\(stored.schedules.count)",
            ])
        bus.onStop { _ in
            logger.info("push-gateway stopping", metadata: ["widgetbus.timelines_sequence": "\(timelines.sequence)", "widgetbus.waiting": "\(planner.waiting)"])
        }
    }
}

/// `RemoveWidgetPushToken` requests to intent-handler, each resent with its id until answered
/// (``ResendingRequester``: the id makes a resent request change nothing twice). A removal lost to
/// a restart costs one more refused push: APNs refuses the token again, and it is removed then.
final class TokenRemovals {
    private let requests: ResendingRequester
    private let codec: WireCodec

    init(bus: Bus, intentsEndpoint: String, logger: Logger) throws {
        codec = bus.codec
        requests = try ResendingRequester(
            bus: bus, endpoint: intentsEndpoint, resendAfter: PushGatewayService.removalTimeout, attempts: nil, logger: logger
        ) { id, outcome in
            guard case .success(let payload) = outcome else { return }  // never given up: resent until answered
            let reply = JSONFieldScanner(payload)
            if reply.string("type") == MessageType.error.rawValue {
                logger.error(
                    "intent-handler refused to remove a push token",
                    metadata: ["widgetbus.request_id": "\(id)", "widgetbus.code": "\(reply.object("body")?.string("code") ?? "-")"])
            } else {
                logger.info("push token removed", metadata: ["widgetbus.request_id": "\(id)"])
            }
        }
    }

    /// Asks intent-handler to remove `token` from each of `users`.
    func remove(_ token: String, of users: [String], now: Date) throws {
        for user in users {
            let id = MessageID.random()
            let payload = try codec.encode(
                Envelope(id: id, type: MessageType.removeWidgetPushToken.rawValue, user: user, sentAt: now, body: RemoveWidgetPushTokenBody(token: token)))
            try requests.send(payload, id: id, now: now)
        }
    }
}

/// The sends running off the bus thread: how many there are (at most ``PushGatewayService/maxSendsInFlight``),
/// and a wait for the last to finish, so that a stop can take their answers.
private final class SendsInFlight: @unchecked Sendable {
    // Guarded by `condition`.
    private let condition = NSCondition()
    private var running = 0

    func started() {
        condition.lock()
        running += 1
        condition.unlock()
    }

    func finished() {
        condition.lock()
        running -= 1
        condition.broadcast()
        condition.unlock()
    }

    var count: Int {
        condition.lock()
        defer { condition.unlock() }
        return running
    }

    /// Returns once no send is running, or after `timeout`.
    func waitUntilNone(timeout: Duration) {
        let deadline = Date().addingTimeInterval(timeout.asSeconds)
        condition.lock()
        defer { condition.unlock() }
        while running > 0, condition.wait(until: deadline) {}
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

extension TokenPushSchedule.ChangeOutcome {
    /// The `result` label of `widgetbus_push_changes_total`.
    var label: String {
        switch self {
        case .scheduled: "scheduled"
        case .joined: "joined"
        case .coveredByTimeline: "covered"
        }
    }
}

extension PushOutcome {
    /// The `result` label of `widgetbus_pushes_total`.
    var label: String {
        switch self {
        case .delivered: "delivered"
        case .tokenGone: "token_gone"
        case .retry: "retry"
        case .refused, .tokenRefused: "refused"
        case .dryRun: "dry_run"
        }
    }
}

extension EnvironmentSetting {
    public static let pushCoalescingDelay = EnvironmentSetting(
        variable: "WIDGETBUS_PUSH_COALESCE_S", defaultValue: "10",
        purpose: "seconds a first change to a device's widgets waits for others to join its push")
    public static let pushMinimumInterval = EnvironmentSetting(
        variable: "WIDGETBUS_PUSH_INTERVAL_S", defaultValue: "300",
        purpose: "shortest time in seconds between two pushes to one device; changes within it join the push at its end")
    public static let pushDailyLimit = EnvironmentSetting(
        variable: "WIDGETBUS_PUSH_DAILY_LIMIT", defaultValue: "24",
        purpose: "most pushes to one device in any 24 hours (WidgetKit's reload budget is a few dozen a day)")
}
