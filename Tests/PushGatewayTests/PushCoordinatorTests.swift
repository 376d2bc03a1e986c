import Foundation
import Logging
import Testing
import WidgetBusProtocol
import WidgetDomain

@testable import PushGateway

/// push-gateway's wiring in-process: token changes and published timelines in, pushes out, APNs's
/// answers back, over a real store in a temporary folder and dates set by hand. Each step must be
/// in the store before it is acted on, so the tests read the store back as a restart would.
@Suite("Push coordinator")
struct PushCoordinatorTests {
    static let budget = PushBudget(coalescingDelay: 10, minimumInterval: 300, dailyLimit: 24)
    static let at = ShownTimelineTests.start.addingTimeInterval
    static let phone = PushPlannerTests.phone
    static let ann = UserPushTokens(user: "ann", tokens: [phone], version: 1)
    static let tension = UserWidget(user: "ann", kind: .tensionCheck)

    /// A coordinator over a fresh store; `restarted(at:)` plays a restart: a coordinator made
    /// anew from what the store holds.
    final class Harness {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("push-coordinator-\(UUID().uuidString)")
        let store: PushStore
        private(set) var coordinator: PushCoordinator!

        init() throws {
            store = try PushStore(path: folder.appendingPathComponent("push-gateway.sqlite").path)
            try restarted(at: PushCoordinatorTests.at(0))
        }

        deinit {
            try? FileManager.default.removeItem(at: folder)
        }

        func restarted(at now: Date, topic: String = "app.widgets") throws {
            coordinator = try PushCoordinator(
                store: store, budget: PushCoordinatorTests.budget, retries: PushRetryPolicy(), topic: topic, now: now,
                logger: Logger(label: "push-coordinator-tests"))
        }

        /// What the store holds, as a restart reads it.
        func stored() throws -> (shown: [UserWidget: ShownTimeline], schedules: [String: TokenPushSchedule]) {
            try store.load()
        }

        /// Ann's phone known, her Tension Check widget shown at 0 s and changed at 5 s: a push
        /// due at 15 s (the coalescing delay).
        func annsWidgetChanged() throws {
            try coordinator.take(tokenChanges: [.user(PushCoordinatorTests.ann)], timelines: [:], at: PushCoordinatorTests.at(0))
            try coordinator.take(tokenChanges: [], timelines: [PushCoordinatorTests.tension: try timeline(.picker)], at: PushCoordinatorTests.at(0))
            try coordinator.take(
                tokenChanges: [], timelines: [PushCoordinatorTests.tension: try timeline(ShownTimelineTests.done, builtAt: 5)],
                at: PushCoordinatorTests.at(5))
        }
    }

    /// Ann's Tension Check timeline showing `phase`, built at `seconds`, as timeline-service publishes it.
    static func timeline(_ phase: TensionCheckPhase, builtAt seconds: TimeInterval = 0, user: String = "ann") throws -> JSONFieldScanner {
        let body = TimelineBody(
            kind: .tensionCheck, user: user, stateVersion: 1, timeZone: "UTC", generatedAt: at(seconds),
            timeline: .tensionCheck(Timeline(entries: [TimelineEntry(date: at(seconds), content: phase)], policy: .never)))
        return JSONFieldScanner(try WireCodec().encode(body))
    }

    @Test func aChangeIsStoredAsDueThenAsInFlightBeforeItsPushIsHandedOut() throws {
        let harness = try Harness()
        try harness.annsWidgetChanged()
        let waiting = try #require(try harness.stored().schedules[Self.phone.token])
        #expect(waiting.due == Self.at(15) && waiting.inFlight == nil)
        #expect(try harness.stored().shown[Self.tension] != nil, "the widget's latest timeline is remembered")
        #expect(harness.coordinator.nextDue == Self.at(15))

        #expect(try harness.coordinator.takeDue(at: Self.at(14), limit: 10).isEmpty)
        let pushes = try harness.coordinator.takeDue(at: Self.at(15), limit: 10)
        #expect(pushes.map(\.token) == [Self.phone.token])
        #expect(try harness.stored().schedules[Self.phone.token]?.inFlight != nil, "in flight in the store before it is sent")
    }

    @Test func aTimelineOfAUserWithoutATokenIsNeitherPlannedForNorRemembered() throws {
        let harness = try Harness()
        let bob = UserWidget(user: "bob", kind: .tensionCheck)
        try harness.coordinator.take(tokenChanges: [.user(Self.ann)], timelines: [bob: try Self.timeline(.picker, user: "bob")], at: Self.at(0))
        #expect(try harness.stored().shown.isEmpty)
        #expect(harness.coordinator.nextDue == nil)
    }

    /// APNs's answer to the phone's push, at 16 s.
    static func answer(_ outcome: PushOutcome) -> [PushSends.Outcome] {
        [PushSends.Outcome(token: phone.token, outcome: outcome, seconds: 0.1)]
    }

    @Test func aTokenAPNsCallsGoneIsNamedForRemovalWithTheUsersHoldingItAndNothingIsDueForIt() throws {
        let harness = try Harness()
        try harness.annsWidgetChanged()
        _ = try harness.coordinator.takeDue(at: Self.at(15), limit: 10)
        let gone = try harness.coordinator.answered(Self.answer(.tokenGone(reason: "Unregistered")), at: Self.at(16))
        #expect(gone.map(\.token) == [Self.phone.token] && gone.map(\.users) == [["ann"]])
        let schedule = try #require(try harness.stored().schedules[Self.phone.token])
        #expect(schedule.inFlight == nil && schedule.due == nil)
        #expect(harness.coordinator.nextDue == nil)
    }

    @Test func aTokenRefusedForTheTopicIsStoredSoAndPushedAgainOnlyUnderAnotherTopic() throws {
        let harness = try Harness()
        try harness.annsWidgetChanged()
        _ = try harness.coordinator.takeDue(at: Self.at(15), limit: 10)
        let gone = try harness.coordinator.answered(
            Self.answer(.tokenRefused(reason: "DeviceTokenNotForTopic", topic: "app.widgets")), at: Self.at(16))
        #expect(gone.isEmpty, "the token stays its users'")
        #expect(try harness.stored().schedules[Self.phone.token]?.refusal?.topic == "app.widgets")

        try harness.restarted(at: Self.at(20))
        #expect(try harness.stored().schedules[Self.phone.token]?.refusal != nil, "the same topic: still refused")
        try harness.restarted(at: Self.at(20), topic: "other.app.widgets")
        try harness.coordinator.take(tokenChanges: [.all([Self.ann])], timelines: [:], at: Self.at(20))
        #expect(try harness.stored().schedules[Self.phone.token]?.refusal == nil, "another topic: lifted, and stored at the first turn")
    }

    @Test func aSnapshotOfEveryTokenForgetsTheScheduleOfATokenNoUserHoldsAnyMore() throws {
        let harness = try Harness()
        try harness.annsWidgetChanged()
        #expect(try harness.stored().schedules[Self.phone.token] != nil)
        try harness.coordinator.take(tokenChanges: [.all([])], timelines: [:], at: Self.at(6))
        #expect(try harness.stored().schedules[Self.phone.token] == nil)
        #expect(try harness.coordinator.takeDue(at: Self.at(15), limit: 10).isEmpty)
    }

    @Test func aTimelineArrivingWithItsUsersFirstTokenIsRememberedInTheSameTurn() throws {
        let harness = try Harness()
        try harness.coordinator.take(tokenChanges: [.user(Self.ann)], timelines: [Self.tension: try Self.timeline(.picker)], at: Self.at(0))
        #expect(try harness.stored().shown[Self.tension] != nil)
    }

    @Test func aPushNotDeliveredWaitsWhatAPNsAskedAndIsStoredSo() throws {
        let harness = try Harness()
        try harness.annsWidgetChanged()
        _ = try harness.coordinator.takeDue(at: Self.at(15), limit: 10)
        #expect(try harness.coordinator.answered(Self.answer(.retry(reason: "TooManyRequests", after: 60)), at: Self.at(16)).isEmpty)
        #expect(harness.coordinator.nextDue == Self.at(76))
        let schedule = try #require(try harness.stored().schedules[Self.phone.token])
        #expect(schedule.inFlight == nil && schedule.due == Self.at(76))
        #expect(try harness.coordinator.takeDue(at: Self.at(75), limit: 10).isEmpty)
        #expect(try harness.coordinator.takeDue(at: Self.at(76), limit: 10).map(\.token) == [Self.phone.token])
    }

    @Test func aPushInFlightWhenTheGatewayStoppedIsSentAgainAfterTheRestart() throws {
        let harness = try Harness()
        try harness.annsWidgetChanged()
        _ = try harness.coordinator.takeDue(at: Self.at(15), limit: 10)
        try harness.restarted(at: Self.at(20))
        #expect(harness.coordinator.nextDue == Self.at(20), "due again at once")
        // The service asks for due pushes only once the tokens are known again.
        try harness.coordinator.take(tokenChanges: [.all([Self.ann])], timelines: [:], at: Self.at(20))
        #expect(try harness.coordinator.takeDue(at: Self.at(20), limit: 10).map(\.token) == [Self.phone.token])
    }

    @Test func noMoreThanTheLimitIsTakenAtOnce() throws {
        let harness = try Harness()
        let tablet = PushPlannerTests.tablet
        let jitter = UserWidget(user: "ann", kind: .jitter)
        try harness.coordinator.take(
            tokenChanges: [.user(UserPushTokens(user: "ann", tokens: [Self.phone, tablet], version: 1))], timelines: [:], at: Self.at(0))
        let body = { (state: WidgetState, seconds: TimeInterval) throws -> JSONFieldScanner in
            let now = Self.at(seconds)
            return JSONFieldScanner(
                try WireCodec().encode(
                    TimelineBody(
                        kind: .jitter, user: "ann", stateVersion: 1, timeZone: "UTC", generatedAt: now,
                        timeline: state.timeline(for: .jitter, now: now, timeZone: .gmt))))
        }
        var context = ReduceContext(now: Self.at(5), timeZone: .gmt, random: RandomSource(SeededRandom(seed: 7)))
        let drinking = try WidgetState.initial(for: .jitter).reduce(.jitter(.startDrink), context: &context).state
        try harness.coordinator.take(tokenChanges: [], timelines: [jitter: try body(.initial(for: .jitter), 0)], at: Self.at(0))
        try harness.coordinator.take(tokenChanges: [], timelines: [jitter: try body(drinking, 5)], at: Self.at(5))
        let firstTaken = try harness.coordinator.takeDue(at: Self.at(15), limit: 1)
        let secondTaken = try harness.coordinator.takeDue(at: Self.at(15), limit: 1)
        #expect(firstTaken.count == 1 && secondTaken.count == 1)
        #expect(Set((firstTaken + secondTaken).map(\.token)) == [Self.phone.token, tablet.token])
    }
}
