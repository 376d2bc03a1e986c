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
/// for each reply), every time, and would only be slowed down; so after ``unpaidRestsBeforePause``
/// rests in a row that each gathered at most one message, the socket stops resting for
/// ``pauseIntervals`` intervals, then tries again. Under load a rest now and then that gathers
/// one (the scheduler ran something else) does not stop the rests: it takes that many in a row.
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

    /// Rests in a row that gathered at most one message each, after which resting stops.
    static let unpaidRestsBeforePause = 8
    /// How long resting stops once rests no longer pay, in intervals: long enough that the rests a
    /// one-at-a-time client still meets (eight per pause) are a small share of its time.
    static let pauseIntervals = 1_000.0

    private var restingUntil: Date?
    private var pausedUntil: Date?
    private var unpaidRests = 0

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
        if restingUntil != nil {
            // The first take after a rest: what the rest gathered.
            restingUntil = nil
            unpaidRests = count > 1 ? 0 : unpaidRests + 1
            if unpaidRests == Self.unpaidRestsBeforePause {
                pausedUntil = now.addingTimeInterval(Self.pauseIntervals * interval)
                unpaidRests = 0
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
