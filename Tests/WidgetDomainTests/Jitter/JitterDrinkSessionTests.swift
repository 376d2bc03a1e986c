import Foundation
import Testing
@testable import WidgetDomain

/// `StartDrinkIntent` and `CompleteDrinkIntent`: the sipping timer.
@Suite("Jitter drink session")
struct JitterDrinkSessionTests {
    typealias Machine = JitterStateMachine

    // MARK: Start

    @Test func startOpensASessionNowWithAGeneratedId() throws {
        var context = JitterFixture.context()
        let transition = try Machine.reduce(JitterFixture.scoresState, .startDrink, context: &context)
        var fresh = JitterFixture.context()
        #expect(transition.state.session == DrinkSession(id: fresh.makeID(), startTime: Fixture.now))
        #expect(transition.state.scores == JitterFixture.scores)
        #expect(transition.records.isEmpty)
        #expect(transition.openURL == nil)
        #expect(UUID(uuidString: try #require(transition.state.session).id) != nil)
    }

    @Test func startWithoutScoresStillTimes() throws {
        var context = JitterFixture.context()
        let next = try Machine.reduce(.initial, .startDrink, context: &context).state
        #expect(next.session?.startTime == Fixture.now)
        #expect(next.scores == nil)
    }

    @Test("a second start while one is active returns it unchanged", arguments: [0.0, 60, 1800, 14_274] as [TimeInterval])
    func secondStart(later: TimeInterval) throws {
        var context = JitterFixture.context(now: Fixture.now.addingTimeInterval(later))
        let transition = try Machine.reduce(JitterFixture.sippingState, .startDrink, context: &context)
        #expect(transition.state == JitterFixture.sippingState)
        #expect(transition.records.isEmpty)
        var fresh = JitterFixture.context()
        #expect(context.makeID() == fresh.makeID())
    }

    @Test func startAfterTheSessionExpiredReplacesIt() throws {
        let at = JitterFixture.session.expiresAt
        var context = JitterFixture.context(now: at)
        let transition = try Machine.reduce(JitterFixture.sippingState, .startDrink, context: &context)
        let session = try #require(transition.state.session)
        #expect(session.id != JitterFixture.session.id)
        #expect(session.startTime == at)
        #expect(transition.records.isEmpty)
    }

    // MARK: Complete

    @Test func completeEndsTheSessionRecordsItAndOpensTheApp() throws {
        var context = JitterFixture.context()
        let transition = try Machine.reduce(JitterFixture.sippingState, .completeDrink(sessionId: JitterFixture.session.id), context: &context)
        #expect(transition.state == JitterFixture.scoresState)
        let drink = FinishedDrink(id: JitterFixture.session.id, startedAt: JitterFixture.session.startTime, completedAt: Fixture.now)
        #expect(transition.records == [.finishedDrink(drink)])
        #expect(drink.elapsedSeconds == 125)
        #expect(transition.records.first?.collection == "drink_sessions")
        #expect(transition.openURL == "jitter://complete-drink?sessionId=5f0c6b1e-0000-4000-8000-000000000001")
    }

    @Test func startThenCompleteRoundTrip() throws {
        var context = JitterFixture.context()
        let started = try Machine.reduce(.initial, .startDrink, context: &context).state
        let id = try #require(started.session).id
        context.now = Fixture.now.addingTimeInterval(95)
        let done = try Machine.reduce(started, .completeDrink(sessionId: id), context: &context)
        #expect(done.state.session == nil)
        #expect(done.openURL == "jitter://complete-drink?sessionId=\(id)")
        guard case .finishedDrink(let drink) = try #require(done.records.first) else {
            Issue.record("expected a finished drink record, got \(done.records)")
            return
        }
        #expect(drink.elapsedSeconds == 95)
    }

    @Test("completing another id is unknown_drink_session", arguments: [
        "", "wrong", "5F0C6B1E-0000-4000-8000-000000000001", "5f0c6b1e-0000-4000-8000-000000000001 ",
    ])
    func completeWrongId(id: String) {
        var context = JitterFixture.context()
        let violation = ruleViolation { _ = try Machine.reduce(JitterFixture.sippingState, .completeDrink(sessionId: id), context: &context) }
        #expect(violation?.code == "unknown_drink_session")
    }

    @Test func completeWithNoSessionIsUnknownDrinkSession() {
        var context = JitterFixture.context()
        let violation = ruleViolation { _ = try Machine.reduce(JitterFixture.scoresState, .completeDrink(sessionId: JitterFixture.session.id), context: &context) }
        #expect(violation?.code == "unknown_drink_session")
        #expect(violation?.message.contains(JitterFixture.session.id) == true)
    }

    @Test func completingTwiceIsUnknownTheSecondTime() throws {
        var context = JitterFixture.context()
        let done = try Machine.reduce(JitterFixture.sippingState, .completeDrink(sessionId: JitterFixture.session.id), context: &context).state
        let violation = ruleViolation { _ = try Machine.reduce(done, .completeDrink(sessionId: JitterFixture.session.id), context: &context) }
        #expect(violation?.code == "unknown_drink_session")
    }

    @Test func completingASupersededSessionIsUnknown() throws {
        var context = JitterFixture.context(now: JitterFixture.session.expiresAt.addingTimeInterval(1))
        let restarted = try Machine.reduce(JitterFixture.sippingState, .startDrink, context: &context).state
        let violation = ruleViolation { _ = try Machine.reduce(restarted, .completeDrink(sessionId: JitterFixture.session.id), context: &context) }
        #expect(violation?.code == "unknown_drink_session")
    }

    @Test("completing an expired session is drink_session_expired", arguments: [0.0, 1, 86_400])
    func completeExpired(after: TimeInterval) {
        var context = JitterFixture.context(now: JitterFixture.session.expiresAt.addingTimeInterval(after))
        let violation = ruleViolation { _ = try Machine.reduce(JitterFixture.sippingState, .completeDrink(sessionId: JitterFixture.session.id), context: &context) }
        #expect(violation?.code == "drink_session_expired")
    }

    @Test func completingJustBeforeExpiryWorks() throws {
        var context = JitterFixture.context(now: JitterFixture.session.expiresAt.addingTimeInterval(-1))
        let transition = try Machine.reduce(JitterFixture.sippingState, .completeDrink(sessionId: JitterFixture.session.id), context: &context)
        guard case .finishedDrink(let drink) = try #require(transition.records.first) else {
            Issue.record("expected a finished drink record, got \(transition.records)")
            return
        }
        #expect(drink.elapsedSeconds == 4 * 3600 - 1)
    }

    // MARK: Session arithmetic

    @Test func sessionLivesFourHours() {
        #expect(DrinkSession.maximumDuration == 4 * 3600)
        let session = JitterFixture.session
        #expect(session.expiresAt == session.startTime.addingTimeInterval(14_400))
        #expect(session.isActive(at: session.expiresAt.addingTimeInterval(-0.001)))
        #expect(!session.isActive(at: session.expiresAt))
        #expect(JitterFixture.sippingState.activeSession(at: session.expiresAt) == nil)
        #expect(JitterFixture.sippingState.activeSession(at: Fixture.now) == session)
    }

    @Test("elapsed time is whole seconds formatted HH:MM:SS", arguments: [
        (0.0, 0, "00:00:00"), (9.999, 9, "00:00:09"), (61, 61, "00:01:01"), (3599, 3599, "00:59:59"),
        (3600, 3600, "01:00:00"), (14_399, 14_399, "03:59:59"), (-5, 0, "00:00:00"),
    ])
    func elapsed(offset: TimeInterval, seconds: Int, text: String) {
        let session = DrinkSession(id: "s", startTime: Fixture.now)
        #expect(session.elapsedSeconds(at: Fixture.now.addingTimeInterval(offset)) == seconds)
        #expect(DrinkSession.formatElapsed(seconds) == text)
    }

    @Test func formatKeepsCountingPastNinetyNineHours() {
        #expect(DrinkSession.formatElapsed(100 * 3600 + 5) == "100:00:05")
    }
}
