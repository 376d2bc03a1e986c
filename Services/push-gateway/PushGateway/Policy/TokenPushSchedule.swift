import Foundation

/// When one push token is pushed next: the budget-aware coalescing rule, as a value changed by
/// pure functions of the date they are given. push-gateway keeps one per token and stores it
/// with every change, so a restart neither forgets a push that was due nor the pushes that
/// count against the budget.
///
/// The rule:
/// - A change schedules a push at the latest of: the change plus the coalescing delay, the last
///   push plus the minimum interval, and the moment the last 24 hours hold fewer pushes than the
///   daily limit. Changes before that join it: one push, whatever their number.
/// - A change is not pushed when the widget it changed reloads by itself (its timeline's policy)
///   no later than the push could go: the device gets the new timeline then anyway, and the push
///   would only spend budget. A push whose every change is covered so by the time it falls due is
///   dropped.
/// - A push counts against the budget from the moment it is sent; one that fails and is to be
///   retried gives its place back and falls due again at the retry date.
/// - A token APNs refused for good for the topic (``refusal``) is pushed nothing more while the
///   pushes go to that topic.
public struct TokenPushSchedule: Codable, Sendable, Equatable {
    /// A push waiting for its date.
    public struct Pending: Codable, Sendable, Equatable {
        public var due: Date
        /// Until when the push still brings something: the latest reload date of the widgets whose
        /// change it carries (nil: one of them never reloads by itself).
        public var helpsUntil: Date?
    }

    /// Why APNs refused the token for good, and for which `apns-topic`.
    public struct Refusal: Codable, Sendable, Equatable {
        public var reason: String
        public var topic: String

        public init(reason: String, topic: String) {
            self.reason = reason
            self.topic = topic
        }
    }

    /// A push sent and not yet answered.
    public struct InFlight: Codable, Sendable, Equatable {
        public var sentAt: Date
        public var helpsUntil: Date?
    }

    /// What a change did to the schedule.
    public enum ChangeOutcome: Equatable, Sendable {
        /// A push is now due at this date.
        case scheduled(Date)
        /// The change joined the push already due at this date.
        case joined(Date)
        /// The widget reloads by itself before a push could go: nothing to send.
        case coveredByTimeline
    }

    /// Dates of the pushes sent in the last 24 hours (with the one in flight), oldest first.
    public private(set) var sent: [Date] = []
    public private(set) var pending: Pending?
    public private(set) var inFlight: InFlight?
    /// Set once APNs refused the token for good (``PushOutcome/tokenRefused(reason:topic:)``):
    /// nothing is scheduled for it any more. Kept with the schedule, so across restarts, and gone
    /// with it when no user holds the token.
    public private(set) var refusal: Refusal?

    public init() {}

    /// The date of the push waiting, if one is.
    public var due: Date? { pending?.due }

    /// A widget this token covers changed at `now`; on the device it would reload by itself at
    /// `widgetReloadsAt` (nil: never).
    public mutating func changed(at now: Date, widgetReloadsAt: Date?, budget: PushBudget) -> ChangeOutcome {
        if var pending {
            guard !Self.reloads(by: widgetReloadsAt, before: pending.due) else { return .coveredByTimeline }
            pending.helpsUntil = Self.later(pending.helpsUntil, widgetReloadsAt)
            self.pending = pending
            return .joined(pending.due)
        }
        let due = earliestPush(after: now.addingTimeInterval(budget.coalescingDelay), budget: budget)
        guard !Self.reloads(by: widgetReloadsAt, before: due) else { return .coveredByTimeline }
        pending = Pending(due: due, helpsUntil: widgetReloadsAt)
        return .scheduled(due)
    }

    /// At `now`, whether to send the waiting push: true when it is due, no other is in flight and
    /// it still brings something (it is then in flight and counts against the budget); a due push
    /// whose widgets all reloaded by themselves since is dropped.
    public mutating func takeDue(at now: Date) -> Bool {
        guard inFlight == nil, let pending, pending.due <= now else { return false }
        self.pending = nil
        guard !Self.reloads(by: pending.helpsUntil, before: now) else { return false }
        inFlight = InFlight(sentAt: now, helpsUntil: pending.helpsUntil)
        sent.removeAll { $0 <= now.addingTimeInterval(-PushBudget.day) }
        sent.append(now)
        return true
    }

    /// APNs answered the push in flight — delivered, or refused for good (a token that is gone):
    /// it is not sent again, and it counts as sent.
    public mutating func answered() {
        inFlight = nil
    }

    /// APNs refused the push in flight for good, and would refuse any other to this token for
    /// `topic`: it is answered, the push waiting is dropped, and nothing more is scheduled.
    public mutating func refused(_ refusal: Refusal) {
        inFlight = nil
        pending = nil
        self.refusal = refusal
    }

    /// The pushes now go to `topic`: a refusal for another topic no longer holds (a token is
    /// refused for the topic it was sent with; a gateway started with a mistaken topic and then
    /// corrected would otherwise never push its devices again). Returns whether one was lifted.
    public mutating func liftRefusal(unlessFor topic: String) -> Bool {
        guard let refusal, refusal.topic != topic else { return false }
        self.refusal = nil
        return true
    }

    /// The push in flight was not delivered and is to be sent again at `retryAt` (or later, if
    /// the budget says so), with any change that came meanwhile; it no longer counts against the
    /// budget. A push in flight when the gateway stopped goes the same way, at once: it may or may
    /// not have reached APNs, and a widget reloaded twice costs one reload of budget where a widget
    /// left stale until its next reload costs its user the change.
    public mutating func retry(at retryAt: Date, budget: PushBudget) {
        guard let inFlight else { return }
        self.inFlight = nil
        if let index = sent.lastIndex(of: inFlight.sentAt) { sent.remove(at: index) }
        let helpsUntil = pending.map { Self.later($0.helpsUntil, inFlight.helpsUntil) } ?? inFlight.helpsUntil
        pending = Pending(due: earliestPush(after: retryAt, budget: budget), helpsUntil: helpsUntil)
    }

    /// The earliest date at or after `date` that the minimum interval and the daily limit allow.
    func earliestPush(after date: Date, budget: PushBudget) -> Date {
        var earliest = date
        if let last = sent.last { earliest = max(earliest, last.addingTimeInterval(budget.minimumInterval)) }
        let recent = sent.filter { $0 > earliest.addingTimeInterval(-PushBudget.day) }
        if recent.count >= budget.dailyLimit {
            // The day's window opens again when the oldest push that fills it is a day old.
            earliest = max(earliest, recent[recent.count - budget.dailyLimit].addingTimeInterval(PushBudget.day))
        }
        return earliest
    }

    /// Whether a widget that reloads by itself at `reload` (nil: never) does so no later than `date`.
    private static func reloads(by reload: Date?, before date: Date) -> Bool {
        reload.map { $0 <= date } ?? false
    }

    /// The later of two reload dates, nil (never) being the latest.
    private static func later(_ first: Date?, _ second: Date?) -> Date? {
        guard let first, let second else { return nil }
        return max(first, second)
    }
}
