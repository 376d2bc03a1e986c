import Foundation

/// When a paced socket of a ``Bus`` rests: after a turn takes messages from it, it is not polled
/// for ``interval``, so the messages that arrive meanwhile are taken together on one later turn.
///
/// Every turn that takes messages costs about the same — the wake-up, the system calls, the steps
/// after the messages, a commit — however many it takes, so under load a rest saves all but one
/// of those per message it gathers. A message that arrives after a quiet spell is taken at once;
/// one that arrives during a rest waits at most ``interval``.
///
/// A rest pays only when more than one message arrives during it: one would have cost its own
/// turn anyway. A client that sends one request at a time sends exactly one per rest (it waits
/// for each reply), and would only be slowed down, so the socket keeps a running average of what
/// its rests gathered (each new rest weighs a quarter); when that falls to ``paysAbove`` or less,
/// it stops resting for ``pauseIntervals`` intervals, then tries again from a fresh average.
///
/// A take that fills the turn's batch is not followed by a rest: more is already waiting. Nor,
/// on a socket that answers requests, is a take of ``enoughRequests`` or more: that turn's cost
/// is already shared, and a client that keeps many requests in flight would only be held back.
struct SocketPacing {
    let interval: TimeInterval
    /// The fewest messages a take needs for no rest to follow.
    let restsBelow: Int

    /// A take of requests large enough not to need a rest.
    static let enoughRequests = 8

    /// What a rest must gather on average to go on resting.
    static let paysAbove = 1.25
    /// How long resting stops once rests no longer pay, in intervals: long enough that the rests a
    /// one-at-a-time client still meets (about five, until the average falls again) are a small
    /// share of its requests.
    static let pauseIntervals = 1_000.0
    /// The average a fresh start assumes: rests pay until they are seen not to.
    private static let freshAverage = 2.0

    private var restingUntil: Date?
    private var pausedUntil: Date?
    private var gathered = Self.freshAverage

    /// - Parameters:
    ///   - batch: the most a turn takes from the socket.
    ///   - answersRequests: whether its senders wait for replies.
    init(_ interval: TimeInterval, batch: Int, answersRequests: Bool) {
        self.interval = interval
        restsBelow = answersRequests ? min(batch, Self.enoughRequests) : batch
    }

    /// The end of the rest the socket is in at `now`; nil when it is not resting. A rest (or
    /// pause) ending further away than twice its length is one the clock stepped back across,
    /// and is over.
    func restEnd(at now: Date) -> Date? {
        guard let restingUntil, Self.isAhead(restingUntil, of: now, within: interval) else { return nil }
        return restingUntil
    }

    /// Records a turn that took `count` messages at `now`, and starts the rest that follows it, if any.
    mutating func took(_ count: Int, at now: Date) {
        if let restingUntil {
            // The first take after a rest: what the rest gathered — nothing, when this take came
            // a whole interval after its end.
            let gatheredNothing = now.timeIntervalSince(restingUntil) > interval
            gathered = 0.75 * gathered + 0.25 * (gatheredNothing ? 0 : Double(count))
            self.restingUntil = nil
            if gathered <= Self.paysAbove {
                pausedUntil = now.addingTimeInterval(Self.pauseIntervals * interval)
                gathered = Self.freshAverage
            }
        }
        if let pausedUntil, Self.isAhead(pausedUntil, of: now, within: Self.pauseIntervals * interval) { return }
        pausedUntil = nil
        if count < restsBelow { restingUntil = now.addingTimeInterval(interval) }
    }

    /// Whether `date` is still ahead of `now`, and not so far (twice `length`) that the clock
    /// must have stepped back. Twice, not once: a date is a `Double` of seconds since 2001, so
    /// `now` plus a millisecond is not exactly a millisecond ahead of `now`.
    private static func isAhead(_ date: Date, of now: Date, within length: TimeInterval) -> Bool {
        let left = date.timeIntervalSince(now)
        return left > 0 && left <= 2 * length
    }
}
