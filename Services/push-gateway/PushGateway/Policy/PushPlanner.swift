import Foundation
import ServiceSupport
import WidgetBusProtocol

/// push-gateway's decisions without its I/O: which device to push, and when. It is told of every
/// timeline timeline-service publishes and of every user's push tokens, and answers with the
/// pushes due at a date. Everything it decides from is a value here, so a test drives it with
/// dates of its own; the service around it follows the bus, stores what changed and sends.
///
/// The device is modelled as holding the last timeline published for each of its widgets (it
/// reloads whenever it is pushed or its timeline's policy says so, and gets the latest then). A
/// timeline whose content differs from that one's, before that one's reload date, is a change;
/// a change is pushed to every token of the user that covers the widget's kind, on each token's
/// ``TokenPushSchedule``, unless APNs refused that token for good (``refused(_:_:)``).
public struct PushPlanner {

    public let budget: PushBudget
    /// The last timeline published for each widget.
    public private(set) var shown: [UserWidget: ShownTimeline]
    /// Every token's schedule, while it has one.
    public private(set) var schedules: [String: TokenPushSchedule]
    /// Each user's tokens.
    private var tokensByUser: [String: [WidgetPushToken]] = [:]
    /// The users holding each token (a shared device can hold it for two accounts).
    private var holders: [String: Set<String>] = [:]
    private var dueDates = RefreshSchedule<String>()

    /// Starts at `now` from what was stored: the timelines last seen and the schedules kept. A
    /// push that was in flight when the gateway stopped is due again at once
    /// (``TokenPushSchedule/retry(at:budget:)``).
    public init(
        budget: PushBudget, now: Date, shown: [UserWidget: ShownTimeline] = [:], schedules: [String: TokenPushSchedule] = [:]
    ) {
        self.budget = budget
        self.shown = shown
        self.schedules = schedules
        for (token, var schedule) in schedules {
            if schedule.inFlight != nil {
                schedule.retry(at: now, budget: budget)
                self.schedules[token] = schedule
            }
            if let due = schedule.due { dueDates.schedule(token, at: due) }
        }
    }

    /// What a change did to one token's schedule.
    public struct ScheduledChange: Equatable, Sendable {
        public var token: String
        public var outcome: TokenPushSchedule.ChangeOutcome
    }

    /// A timeline was published for `widget`, and the gateway learnt of it at `now`. Returns what
    /// it did to the schedule of each token that covers the widget; none when its content did not
    /// change. A widget seen for the first time is only remembered: what its device shows is
    /// unknown, and at the gateway's first start every widget is new.
    public mutating func published(_ timeline: ShownTimeline, for widget: UserWidget, at now: Date) -> [ScheduledChange] {
        // A timeline with the same content replaces the one remembered too, though the device may
        // still hold the older one: they show the same, and the newer's reload date is at worst
        // later, which can only make a change look worth a push when it was not.
        let previous = shown.updateValue(timeline, forKey: widget)
        guard let previous, previous.showsOtherContent(than: timeline) else { return [] }
        let tokens = (tokensByUser[widget.user] ?? []).filter { $0.covers(widget.kind) && schedules[$0.token]?.refusal == nil }
        return tokens.map { token in
            var schedule = schedules[token.token] ?? TokenPushSchedule()
            let outcome = schedule.changed(at: now, widgetReloadsAt: previous.reloadDate, budget: budget)
            if case .scheduled(let due) = outcome {
                dueDates.schedule(token.token, at: due)
            }
            if outcome != .coveredByTimeline { schedules[token.token] = schedule }
            return ScheduledChange(token: token.token, outcome: outcome)
        }
    }

    /// Tokens with a push scheduled and not yet sent.
    public var waiting: Int { schedules.values.count { $0.pending != nil } }

    /// Every user's tokens, as a snapshot of them says: replaces all that was known. Returns the
    /// tokens no user holds any more (with those removed while the gateway was stopped): their
    /// schedules are gone.
    public mutating func replaceTokens(_ all: [UserPushTokens]) -> [String] {
        tokensByUser = Dictionary(all.filter { !$0.tokens.isEmpty }.map { ($0.user, $0.tokens) }) { $1 }
        holders = [:]
        for (user, tokens) in tokensByUser {
            for token in tokens { holders[token.token, default: []].insert(user) }
        }
        let gone = schedules.keys.filter { holders[$0] == nil }
        for token in gone { schedules[token] = nil }
        return gone.sorted()
    }

    /// `user`'s tokens are now `tokens`. Returns the tokens no user holds any more: their
    /// schedules are gone, and a push to them is not sent.
    public mutating func tokensChanged(user: String, _ tokens: [WidgetPushToken]) -> [String] {
        let before = Set((tokensByUser[user] ?? []).map(\.token))
        tokensByUser[user] = tokens.isEmpty ? nil : tokens
        for token in tokens { holders[token.token, default: []].insert(user) }
        var gone: [String] = []
        for token in before.subtracting(tokens.map(\.token)) {
            holders[token]?.remove(user)
            if holders[token]?.isEmpty ?? true {
                holders[token] = nil
                if schedules.removeValue(forKey: token) != nil { gone.append(token) }
            }
        }
        return gone
    }

    /// The pushes to send at `now`, at most `limit` (the others stay due), each then in flight on
    /// its schedule (``TokenPushSchedule/takeDue(at:)``), and every token whose schedule changed (a
    /// push sent or dropped, a schedule gone). A push due while its device's last one is still in
    /// flight waits for that one's answer. Asked only once the tokens are known
    /// (``replaceTokens(_:)``): a token no user holds has no schedule left.
    public mutating func takeDue(at now: Date, limit: Int = .max) -> (pushes: [OutgoingPush], changed: [String]) {
        var pushes: [OutgoingPush] = []
        var changed: [String] = []
        for token in dueDates.takeDue(now: now, limit: limit) {
            guard var schedule = schedules[token] else { continue }
            guard let environment = environment(of: token) else {
                schedules[token] = nil
                changed.append(token)
                continue
            }
            guard schedule.inFlight == nil else { continue }  // due again once answered
            let send = schedule.takeDue(at: now)
            schedules[token] = schedule
            changed.append(token)
            if send { pushes.append(OutgoingPush(token: token, environment: environment, helpsUntil: schedule.inFlight?.helpsUntil)) }
        }
        return (pushes, changed)
    }

    /// When ``takeDue(at:)`` next has something to do; nil when no push waits.
    public var nextDue: Date? { dueDates.nextDue }

    /// Whether `user` has a push token: only their widgets are worth remembering.
    public func hasTokens(user: String) -> Bool {
        tokensByUser[user] != nil
    }

    /// The users who hold `token`: those a removal of it concerns.
    public func holders(of token: String) -> [String] {
        (holders[token] ?? []).sorted()
    }

    /// APNs answered `token`'s push: delivered, or refused for good.
    public mutating func answered(_ token: String) {
        schedules[token]?.answered()
        if let due = schedules[token]?.due { dueDates.schedule(token, at: due) }
    }

    /// APNs refused `token`'s push for good without calling the token gone: the push is answered
    /// and nothing more is scheduled for the token while it is held
    /// (``TokenPushSchedule/refused(_:)``).
    public mutating func refused(_ token: String, _ refusal: TokenPushSchedule.Refusal) {
        schedules[token]?.refused(refusal)
    }

    /// `token`'s push was not delivered; it goes again at `retryAt` (``TokenPushSchedule/retry(at:budget:)``).
    public mutating func retry(_ token: String, at retryAt: Date) {
        guard var schedule = schedules[token] else { return }
        schedule.retry(at: retryAt, budget: budget)
        schedules[token] = schedule
        if let due = schedule.due { dueDates.schedule(token, at: due) }
    }

    private func environment(of token: String) -> APNsEnvironment? {
        holders[token]?.lazy.compactMap { tokensByUser[$0]?.first { $0.token == token }?.environment }.first
    }
}
