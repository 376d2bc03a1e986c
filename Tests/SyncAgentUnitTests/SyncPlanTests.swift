import Foundation
import Logging
import ServiceSupport
import Testing
import WidgetBusProtocol

@testable import SyncAgent

/// When sync-agent runs each user's pass: the plan's decisions, event by event, at chosen times.
@Suite struct SyncPlanTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    func makePlan(concurrency: Int = 2) -> SyncPlan {
        SyncPlan(concurrency: concurrency, backoff: RetryBackoff(base: .seconds(2), cap: .seconds(60)), logger: Logger(label: "test"))
    }

    func result(_ user: String, failed: Bool = false) -> SyncResult {
        SyncResult(
            user: user, startedAt: start, durationMilliseconds: 1, pushed: failed ? 0 : 1,
            failures: failed ? [SyncFailure(error: "database down")] : [])
    }

    func reply(_ id: String, via peer: String = "peer") -> ReplyRoute {
        ReplyRoute(route: [Data(peer.utf8)], requestID: id)
    }

    /// The users whose passes `actions` start, in order.
    func started(_ actions: [SyncPlan.Action]) -> [String] {
        actions.compactMap { if case .runPass(let user) = $0 { user } else { nil } }
    }

    /// The results `actions` deliver, with the peers their replies go to.
    func results(_ actions: [SyncPlan.Action]) -> [(result: SyncResult, peers: [String])] {
        actions.compactMap {
            guard case .deliver(.result(let result, let replies)) = $0 else { return nil }
            return (result, replies.map { String(decoding: $0.route[0], as: UTF8.self) })
        }
    }

    /// The error replies `actions` deliver: request ids and code.
    func errors(_ actions: [SyncPlan.Action]) -> [(ids: [String], code: ErrorCode)] {
        actions.compactMap {
            guard case .deliver(.error(let replies, _, let code, _)) = $0 else { return nil }
            return (replies.map(\.requestID), code)
        }
    }

    @Test func atMostConcurrencyPassesRunAndAUserTriggeredWhileRunningRunsAgain() {
        var plan = makePlan(concurrency: 2)
        #expect(started(plan.handle(.sweepFound(["ann", "bea", "cy"]), now: start)) == ["ann", "bea"])
        #expect(started(plan.handle(.trigger(.foreground(user: "ann")), now: start)).isEmpty, "one pass per user at a time")
        #expect(started(plan.handle(.finished(user: "ann", result("ann")), now: start)) == ["cy"], "the queue first")
        #expect(started(plan.handle(.finished(user: "bea", result("bea")), now: start)) == ["ann"], "then ann again")
    }

    @Test func aSweepDoesNotRunARunningUserAgain() {
        var plan = makePlan()
        #expect(started(plan.handle(.sweepFound(["ann"]), now: start)) == ["ann"])
        #expect(started(plan.handle(.sweepFound(["ann"]), now: start)).isEmpty)
        #expect(started(plan.handle(.finished(user: "ann", result("ann")), now: start)).isEmpty, "the running pass covered it")
    }

    @Test func aFailedUserBacksOffButAnExplicitRequestRunsAtOnce() {
        var plan = makePlan()
        _ = plan.handle(.trigger(.foreground(user: "ann")), now: start)
        let failed = plan.handle(.finished(user: "ann", result("ann", failed: true)), now: start, jitter: 1)
        guard case .retry("ann", .seconds(2))? = failed.first else {
            Issue.record("a retry two seconds on: \(failed)")
            return
        }
        #expect(results(failed).first?.result.nextAttemptAt == start + 2)

        #expect(started(plan.handle(.trigger(.foreground(user: "ann")), now: start + 1)).isEmpty, "backing off")
        #expect(started(plan.handle(.sweepFound(["ann"]), now: start + 1)).isEmpty, "backing off")
        #expect(started(plan.handle(.retryDue(user: "ann"), now: start + 1)).isEmpty, "not due yet")
        #expect(started(plan.handle(.trigger(.syncNow(user: "ann", reply: reply("r1"))), now: start + 1)) == ["ann"])

        let again = plan.handle(.finished(user: "ann", result("ann", failed: true)), now: start + 1, jitter: 1)
        guard case .retry("ann", .seconds(4))? = again.first else {
            Issue.record("the ceiling doubles after a second failure: \(again)")
            return
        }
        #expect(started(plan.handle(.retryDue(user: "ann"), now: start + 5)) == ["ann"])
        _ = plan.handle(.finished(user: "ann", result("ann")), now: start + 5)
        #expect(plan.consecutiveFailures(of: "ann") == 0, "a pass that succeeds ends the backoff")
        #expect(started(plan.handle(.trigger(.foreground(user: "ann")), now: start + 5)) == ["ann"])
    }

    @Test func aRetriedSyncRequestIsAnsweredOnceOnItsNewestRoute() {
        var plan = makePlan()
        #expect(started(plan.handle(.trigger(.syncNow(user: "ann", reply: reply("r1", via: "first"))), now: start)) == ["ann"])
        #expect(plan.handle(.trigger(.syncNow(user: "ann", reply: reply("r1", via: "retry"))), now: start).isEmpty)
        let finished = plan.handle(.finished(user: "ann", result("ann")), now: start)
        #expect(results(finished).map(\.peers) == [["retry"]])
        #expect(started(finished).isEmpty, "the retry was the same request: no second pass")
    }

    @Test func aShutdownStartsNothingAndAnswersWhatWaits() {
        var plan = makePlan(concurrency: 1)
        #expect(started(plan.handle(.sweepFound(["ann", "bea"]), now: start)) == ["ann"])
        _ = plan.handle(.trigger(.syncNow(user: "bea", reply: reply("r2"))), now: start)
        let shutdown = plan.handle(.shutdown, now: start)
        #expect(errors(shutdown).map(\.ids) == [["r2"]] && errors(shutdown).first?.code == .unavailable)
        #expect(!plan.isFinished, "ann's pass is still in hand")
        #expect(errors(plan.handle(.trigger(.syncNow(user: "cy", reply: reply("r3"))), now: start)).map(\.ids) == [["r3"]])
        #expect(plan.handle(.sweepDue, now: start).isEmpty)

        let last = plan.handle(.finished(user: "ann", result("ann")), now: start)
        #expect(results(last).count == 1 && started(last).isEmpty)
        #expect(plan.isFinished)
    }

    @Test func passesInHandHaveTheShutdownGraceThenAreCancelled() {
        var plan = makePlan(concurrency: 2)
        #expect(started(plan.handle(.sweepFound(["ann", "bea"]), now: start)) == ["ann", "bea"])
        let shutdown = plan.handle(.shutdown, now: start)
        #expect(shutdown.compactMap { if case .endGrace(let delay) = $0 { delay } else { nil } } == [SyncPlan.shutdownGrace])
        #expect(plan.handle(.shutdown, now: start).isEmpty, "a second signal changes nothing")

        _ = plan.handle(.finished(user: "ann", result("ann")), now: start)  // one finished within the grace
        let over = plan.handle(.shutdownGraceOver, now: start)
        #expect(over.contains { if case .cancelPasses = $0 { true } else { false } }, "bea's pass is cut short")
        let cut = plan.handle(.finished(user: "bea", result("bea", failed: true)), now: start)
        #expect(results(cut).map(\.result.user) == ["bea"] && started(cut).isEmpty)
        #expect(plan.isFinished)
    }

    @Test func aShutdownWithNoPassInHandNeedsNoGrace() {
        var plan = makePlan()
        #expect(plan.handle(.shutdown, now: start).isEmpty)
        #expect(plan.isFinished)
        #expect(plan.handle(.shutdownGraceOver, now: start).isEmpty)
    }

    @Test func oneSweepAtATime() {
        var plan = makePlan()
        #expect(plan.handle(.sweepDue, now: start).count == 1)
        #expect(plan.handle(.sweepDue, now: start).isEmpty, "the first is still listing")
        _ = plan.handle(.sweepFound([]), now: start)
        #expect(plan.handle(.sweepDue, now: start).count == 1)
    }
}
