import Foundation
import PushGateway
import Testing
import WidgetBusProtocol
import WidgetDomain

/// push-gateway's decisions over many widgets and tokens: who is pushed for a change, and when.
@Suite("Push planner")
struct PushPlannerTests {
    static let budget = PushBudget(coalescingDelay: 10, minimumInterval: 300, dailyLimit: 24)
    static let at = TokenPushScheduleTests.at
    static let phone = WidgetPushToken(token: String(repeating: "aa", count: 32), environment: .production, kinds: [.tensionCheck, .jitter])
    static let tablet = WidgetPushToken(token: String(repeating: "bb", count: 32), environment: .sandbox, kinds: [.jitter])
    static let tension = UserWidget(user: "ann", kind: .tensionCheck)
    static let jitter = UserWidget(user: "ann", kind: .jitter)

    /// A planner changed through a reference: `#expect` cannot call a mutating method of a local variable.
    final class Planner {
        var value: PushPlanner

        init(_ value: PushPlanner = PushPlanner(budget: PushPlannerTests.budget, now: PushPlannerTests.at(0))) { self.value = value }

        /// The tokens whose push the change scheduled or joined.
        func published(_ timeline: ShownTimeline, for widget: UserWidget, at date: Date) -> [String] {
            value.published(timeline, for: widget, at: date).filter { $0.outcome != .coveredByTimeline }.map(\.token)
        }

        func tokensChanged(user: String, _ tokens: [WidgetPushToken]) -> [String] { value.tokensChanged(user: user, tokens) }
        func takeDue(at date: Date) -> [OutgoingPush] { value.takeDue(at: date).pushes }
    }

    /// What a widget shows: `content` from `generatedAt` on, never reloading by itself unless `reload` says.
    static func showing(_ content: UInt64, from generatedAt: TimeInterval = 0, reload: TimeInterval? = nil) -> ShownTimeline {
        ShownTimeline(
            generatedAt: at(generatedAt), entries: [.init(date: at(generatedAt), content: content)], reloadDate: reload.map(at))
    }

    @Test func aChangeIsPushedToEveryTokenOfTheUserThatCoversTheKindAndNoOther() {
        let planner = Planner()
        #expect(planner.tokensChanged(user: "ann", [Self.phone, Self.tablet]).isEmpty)
        #expect(planner.published(Self.showing(1), for: Self.jitter, at: Self.at(0)).isEmpty, "first seen: only remembered")
        #expect(planner.published(Self.showing(1), for: Self.tension, at: Self.at(0)).isEmpty)
        #expect(planner.published(Self.showing(1), for: UserWidget(user: "bob", kind: .jitter), at: Self.at(0)).isEmpty)

        #expect(Set(planner.published(Self.showing(2, from: 60), for: Self.jitter, at: Self.at(60))) == [Self.phone.token, Self.tablet.token])
        #expect(planner.published(Self.showing(2, from: 60), for: Self.tension, at: Self.at(61)) == [Self.phone.token], "the tablet has no Tension Check widget")
        #expect(planner.published(Self.showing(2, from: 62), for: UserWidget(user: "bob", kind: .jitter), at: Self.at(62)).isEmpty, "bob has no token")

        #expect(planner.value.nextDue == Self.at(70))
        #expect(planner.takeDue(at: Self.at(69)).isEmpty)
        let pushes = planner.takeDue(at: Self.at(70))
        #expect(Set(pushes.map(\.token)) == [Self.phone.token, Self.tablet.token], "one push each, for three changes")
        #expect(pushes.first { $0.token == Self.tablet.token }?.environment == .sandbox)
        #expect(planner.takeDue(at: Self.at(1_000)).isEmpty)

        // APNs took the phone's push; the tablet's is to be retried (a 429).
        planner.value.answered(Self.phone.token)
        planner.value.retry(Self.tablet.token, at: Self.at(100))
        #expect(planner.value.nextDue == Self.at(100))
        #expect(planner.takeDue(at: Self.at(100)).map(\.token) == [Self.tablet.token])
    }

    @Test func aPushDueWhileTheLastIsInFlightGoesOnceThatOneIsAnswered() {
        let planner = Planner(PushPlanner(budget: PushBudget(coalescingDelay: 0, minimumInterval: 0, dailyLimit: 24), now: Self.at(0)))
        _ = planner.tokensChanged(user: "ann", [Self.phone])
        _ = planner.published(Self.showing(1), for: Self.jitter, at: Self.at(0))
        _ = planner.published(Self.showing(2, from: 1), for: Self.jitter, at: Self.at(1))
        #expect(planner.takeDue(at: Self.at(1)).count == 1)
        _ = planner.published(Self.showing(3, from: 2), for: Self.jitter, at: Self.at(2))
        #expect(planner.takeDue(at: Self.at(2)).isEmpty, "the first is still in flight")
        planner.value.answered(Self.phone.token)
        #expect(planner.value.nextDue == Self.at(2), "due again once the first is answered")
        #expect(planner.takeDue(at: Self.at(3)).map(\.token) == [Self.phone.token])
    }

    @Test func atMostTheLimitIsSentAtOnceAndTheRestStaysDue() {
        let planner = Planner()
        let users = (0..<5).map { "user-\($0)" }
        for (index, user) in users.enumerated() {
            let token = WidgetPushToken(token: String(format: "%064x", index), environment: .sandbox, kinds: [.jitter])
            _ = planner.tokensChanged(user: user, [token])
            let widget = UserWidget(user: user, kind: .jitter)
            _ = planner.published(Self.showing(1), for: widget, at: Self.at(0))
            _ = planner.published(Self.showing(2, from: 1), for: widget, at: Self.at(1))
        }
        let first = planner.value.takeDue(at: Self.at(11), limit: 2).pushes
        #expect(first.count == 2)
        #expect(planner.value.nextDue == Self.at(11), "the others stay due")
        #expect(planner.takeDue(at: Self.at(11)).count == 3)
    }

    @Test func aTimelineBuiltAgainWithTheSameContentPushesNothing() {
        let planner = Planner()
        _ = planner.tokensChanged(user: "ann", [Self.phone])
        _ = planner.published(Self.showing(1, reload: 600), for: Self.jitter, at: Self.at(0))
        #expect(planner.published(Self.showing(1, from: 300, reload: 900), for: Self.jitter, at: Self.at(300)).isEmpty)
        #expect(planner.published(Self.showing(1, from: 900, reload: 1_500), for: Self.jitter, at: Self.at(900)).isEmpty, "the refresh at its reload")
        #expect(planner.value.nextDue == nil)
    }

    @Test func aRemovedTokenIsNotPushedAndASharedTokenLastsUntilItsLastUserRemovesIt() {
        let planner = Planner()
        _ = planner.tokensChanged(user: "ann", [Self.phone])
        _ = planner.tokensChanged(user: "bob", [Self.phone])
        _ = planner.published(Self.showing(1), for: Self.jitter, at: Self.at(0))
        _ = planner.published(Self.showing(2, from: 1), for: Self.jitter, at: Self.at(1))
        #expect(planner.tokensChanged(user: "ann", []).isEmpty, "bob still holds it")
        #expect(planner.takeDue(at: Self.at(11)).map(\.token) == [Self.phone.token])

        #expect(planner.published(Self.showing(3, from: 20), for: Self.jitter, at: Self.at(20)).isEmpty, "ann's is no longer pushed")
        let bob = UserWidget(user: "bob", kind: .jitter)
        _ = planner.published(Self.showing(1), for: bob, at: Self.at(20))
        #expect(planner.published(Self.showing(2, from: 21), for: bob, at: Self.at(21)) == [Self.phone.token])
        #expect(planner.tokensChanged(user: "bob", []) == [Self.phone.token])
        #expect(planner.takeDue(at: Self.at(1_000)).isEmpty, "a push due to a removed token is not sent")
    }

    @Test func schedulesStoredBeforeARestartAreDueAfterItAndAPushInFlightGoesAgain() throws {
        let planner = Planner()
        _ = planner.tokensChanged(user: "ann", [Self.phone, Self.tablet])
        _ = planner.published(Self.showing(1), for: Self.jitter, at: Self.at(0))
        _ = planner.published(Self.showing(2, from: 1), for: Self.jitter, at: Self.at(1))
        #expect(planner.takeDue(at: Self.at(11)).count == 2)
        planner.value.answered(Self.tablet.token)
        _ = planner.published(Self.showing(3, from: 20), for: Self.jitter, at: Self.at(20))
        // Stopped here: the phone's push in flight, the tablet's next one due at 311.

        let restarted = Planner(
            PushPlanner(budget: Self.budget, now: Self.at(30), shown: planner.value.shown, schedules: planner.value.schedules))
        #expect(restarted.value.replaceTokens([UserPushTokens(user: "ann", tokens: [Self.phone, Self.tablet], version: 2)]).isEmpty)
        #expect(restarted.value.nextDue == Self.at(30), "the phone's push may not have reached APNs: it goes again")
        #expect(restarted.takeDue(at: Self.at(30)).map(\.token) == [Self.phone.token])
        #expect(restarted.takeDue(at: Self.at(311)).map(\.token) == [Self.tablet.token])
        #expect(restarted.published(Self.showing(3, from: 312), for: Self.jitter, at: Self.at(312)).isEmpty, "what was shown was kept")
    }

    @Test func aTokenRefusedForGoodIsPushedNothingMoreAndKeptAcrossARestart() {
        let planner = Planner(PushPlanner(budget: PushBudget(coalescingDelay: 0, minimumInterval: 0, dailyLimit: 24), now: Self.at(0)))
        _ = planner.tokensChanged(user: "ann", [Self.phone, Self.tablet])
        _ = planner.published(Self.showing(1), for: Self.jitter, at: Self.at(0))
        _ = planner.published(Self.showing(2, from: 1), for: Self.jitter, at: Self.at(1))
        #expect(planner.takeDue(at: Self.at(1)).count == 2)
        _ = planner.published(Self.showing(3, from: 2), for: Self.jitter, at: Self.at(2))  // waits for the answers
        planner.value.refused(Self.phone.token, TokenPushSchedule.Refusal(reason: "DeviceTokenNotForTopic", topic: "app.push-type.widgets"))
        planner.value.answered(Self.tablet.token)
        #expect(planner.takeDue(at: Self.at(3)).map(\.token) == [Self.tablet.token], "the change that waited goes to the tablet only")
        #expect(planner.published(Self.showing(4, from: 4), for: Self.jitter, at: Self.at(4)) == [Self.tablet.token])

        let restarted = Planner(
            PushPlanner(budget: planner.value.budget, now: Self.at(5), shown: planner.value.shown, schedules: planner.value.schedules))
        #expect(restarted.value.replaceTokens([UserPushTokens(user: "ann", tokens: [Self.phone, Self.tablet], version: 2)]).isEmpty)
        #expect(restarted.published(Self.showing(5, from: 6), for: Self.jitter, at: Self.at(6)) == [Self.tablet.token])
        #expect(restarted.value.schedules[Self.phone.token]?.refusal?.reason == "DeviceTokenNotForTopic")
    }

    @Test func aTokenRemovedWhileTheGatewayWasStoppedLosesItsSchedule() {
        let planner = Planner()
        _ = planner.tokensChanged(user: "ann", [Self.phone])
        _ = planner.published(Self.showing(1), for: Self.jitter, at: Self.at(0))
        _ = planner.published(Self.showing(2, from: 1), for: Self.jitter, at: Self.at(1))

        let restarted = Planner(
            PushPlanner(budget: Self.budget, now: Self.at(5), shown: planner.value.shown, schedules: planner.value.schedules))
        #expect(restarted.value.replaceTokens([UserPushTokens(user: "ann", tokens: [Self.tablet], version: 3)]) == [Self.phone.token])
        #expect(restarted.takeDue(at: Self.at(1_000)).isEmpty && restarted.value.schedules.isEmpty)
    }
}
