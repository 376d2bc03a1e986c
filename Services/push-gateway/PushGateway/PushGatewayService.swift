import BusRuntime
import Foundation
import Logging
import ServiceSupport
import WidgetBusProtocol

/// Wakes the widgets on users' devices with WidgetKit pushes when their content changes, within
/// WidgetKit's budget (docs/PUSH.md). It follows intent-handler's push tokens and
/// timeline-service's published timelines (both Clone-pattern replicas), decides with
/// ``PushPlanner`` through a ``PushCoordinator``, which stores what was decided (``PushStore``)
/// before anything is sent; ``PushSends`` sends off the bus thread and posts the outcomes back
/// through a mailbox. A token APNs calls gone is removed through intent-handler
/// (`RemoveWidgetPushToken`), which stays the only writer of tokens. This type only wires the
/// bus's sockets, timer and mailbox to those two.
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
    let sends: PushSends
    let logger: Logger

    public var name: String { "push-gateway" }
    public var binding: BusBinding { configuration.binding }

    /// Log metadata naming a push token by its first 8 hex digits: enough to follow one device
    /// through the logs, too little to push to it.
    static func metadata(_ token: String, _ more: Logger.Metadata = [:]) -> Logger.Metadata {
        more.merging(["widgetbus.push_token": "\(token.prefix(8))…"]) { $1 }
    }

    init(configuration: Configuration, store: PushStore, sends: PushSends, logger: Logger) {
        self.configuration = configuration
        self.store = store
        self.sends = sends
        self.logger = logger
    }

    public func start(on bus: Bus) throws {
        let coordinator = try PushCoordinator(
            store: store, budget: configuration.budget, retries: configuration.retries, topic: sends.topic, now: bus.clock.now, logger: logger)
        var tokenChanges: [PushTokenDirectory.Change] = []
        // The latest timeline of each widget not yet planned for, scanned (kept by widget: while
        // the tokens have not synced, re-syncs of the timelines replace what they brought before).
        var published: [UserWidget: JSONFieldScanner] = [:]
        let tokens = try SequencedReplica(
            PushTokenDirectory(), bus: bus, eventsEndpoint: configuration.stateEventsEndpoint,
            snapshotEndpoint: configuration.stateSnapshotEndpoint, pacing: Self.stateEventPacing, logger: logger
        ) { tokenChanges += $0 }
        let timelines = try SequencedReplica(
            PublishedWidgetTimelines(), bus: bus, eventsEndpoint: configuration.timelineEventsEndpoint,
            snapshotEndpoint: configuration.timelinesEndpoint, pacing: Self.timelineEventPacing, logger: logger
        ) { for timeline in $0 { published[timeline.widget] = timeline.timeline } }
        let removals = try TokenRemovals(bus: bus, intentsEndpoint: configuration.intentsEndpoint, logger: logger)

        bus.afterMessages { now in
            // Nothing is decided before the tokens are known: a change to a widget of a user whose
            // tokens are not read yet would be missed. Timelines wait meanwhile.
            guard tokens.snapshotCount > 0 else { return }
            try coordinator.take(tokenChanges: tokenChanges, timelines: published, at: now)
            tokenChanges.removeAll()
            published.removeAll()
        }
        // At most maxSendsInFlight at once: the next are taken when answers make room (a turn
        // follows every answer, through the mailbox).
        bus.timer(dueAt: { tokens.snapshotCount > 0 && sends.inFlight < Self.maxSendsInFlight ? coordinator.nextDue : nil }) { now in
            for push in try coordinator.takeDue(at: now, limit: Self.maxSendsInFlight - sends.inFlight) { sends.submit(push) }
        }
        // On stop, the pushes in flight get their answers (for a moment) before the mailbox's last
        // delivery below commits them: a stop is not a kill, and sends nothing twice.
        bus.onStop { _ in
            sends.waitUntilNone(timeout: Self.stopWaitForAnswers)
        }
        let clock = bus.clock
        bus.receive(from: sends.outcomes) { answers in
            let now = clock.now
            for (token, users) in try coordinator.answered(answers, at: now) { try removals.remove(token, of: users, now: now) }
        }

        logger.info(
            "push-gateway ready",
            metadata: [
                "widgetbus.budget": "\(configuration.budget.coalescingDelay) s delay, \(configuration.budget.minimumInterval) s interval, \(configuration.budget.dailyLimit) a day",
                "widgetbus.widgets_remembered": "\(coordinator.counts.widgets)", "widgetbus.schedules": "\(coordinator.counts.schedules)",
            ])
        bus.onStop { [logger] _ in
            logger.info(
                "push-gateway stopping",
                metadata: ["widgetbus.timelines_sequence": "\(timelines.sequence)", "widgetbus.waiting": "\(coordinator.counts.waiting)"])
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
