import Foundation
import Testing
import WidgetBusProtocol
import WidgetDomain

/// One full scenario per widget through real intent-handler and timeline-service processes,
/// and every invalid input the widget rules name answered with its code and no change to stored state.
@Suite(.serialized, .blockingThreads)
struct WidgetScenarioTests {
    /// Sends a message that must be refused and checks the stored state did not move.
    func expectRefused(
        _ bus: BusFixture, _ type: MessageType, user: String, body: String = "{}", code: String, app: WidgetApp,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let before = try bus.storedState(app, user: user)
        let error = try bus.sendExpectingError(type, user: user, body: body)
        #expect(error.code.rawValue == code, "\(type.rawValue) \(body)", sourceLocation: sourceLocation)
        #expect(try bus.storedState(app, user: user) == before, "state changed by a refused \(type.rawValue)",
                sourceLocation: sourceLocation)
    }

    @Test func jitterSippingTimerThenCompletionWithDeepLink() throws {
        let bus = try BusFixture()
        try bus.start(.intentHandler)
        try bus.start(.timelineService)
        try bus.send(.updateJitterScores, user: "sam", body: #"{"crashRiskScore":72,"focusScore":64,"currentCaffeineLevel":120}"#)

        let started = try bus.send(.startDrink, user: "sam")
        guard case .jitter(let state) = started.state, let session = state.session else {
            Issue.record("no active session after StartDrinkIntent")
            return
        }
        let again = try bus.send(.startDrink, user: "sam")
        #expect(again.version == started.version, "a second start returns the active session unchanged")

        let sipping = try bus.timeline(.jitter, user: "sam", as: JitterWidgetContent.self, atLeastVersion: started.version)
        #expect(sipping.entries.count == 180)
        #expect(zip(sipping.entries, sipping.entries.dropFirst()).allSatisfy { $1.date.timeIntervalSince($0.date) == 10 })
        #expect(sipping.entries.allSatisfy { $0.content.view == .sipping && $0.content.sessionId == session.id })
        #expect(sipping.entries.last?.content.elapsed?.count == 8, "HH:MM:SS")
        #expect(sipping.policy == .atEnd)

        try expectRefused(bus, .completeDrink, user: "sam", body: #"{"sessionId":"stale-session"}"#,
                          code: "unknown_drink_session", app: .jitter)

        let completed = try bus.sendForReply(.completeDrink, user: "sam", body: #"{"sessionId":"\#(session.id)"}"#)
        #expect(completed.openURL == "jitter://complete-drink?sessionId=\(session.id)")
        let scores = try bus.timeline(.jitter, user: "sam", as: JitterWidgetContent.self, atLeastVersion: completed.record.version)
        #expect(scores.entries.count == 12)
        #expect(zip(scores.entries, scores.entries.dropFirst()).allSatisfy { $1.date.timeIntervalSince($0.date) == 300 })
        #expect(scores.entries.first?.content.view == .scores)
        #expect(scores.entries.first?.content.riskColor == .red)

        guard case .finishedDrink(let drink)? = try bus.pendingRecords(user: "sam").first else {
            Issue.record("the finished drink is not pending for sync")
            return
        }
        #expect(drink.id == session.id)
        try expectRefused(bus, .completeDrink, user: "sam", body: #"{"sessionId":"\#(session.id)"}"#,
                          code: "unknown_drink_session", app: .jitter)
        try expectRefused(bus, .updateJitterScores, user: "sam",
                          body: #"{"crashRiskScore":101,"focusScore":64,"currentCaffeineLevel":120}"#,
                          code: "invalid_score", app: .jitter)
    }

    @Test func tenXOnboardingGoalsDaySetupToggleAndStreak() throws {
        let bus = try BusFixture()
        try bus.start(.intentHandler)
        try bus.start(.timelineService)
        let user = "tess"

        let fresh = try bus.timeline(.tenXHome, user: user, as: TenXWidgetSnapshot.self)
        #expect(fresh.entries.first?.content.state == .needsOnboarding)
        #expect(fresh.entries.first?.content.deepLink.rawValue.hasPrefix("tenx://") == true)

        var goalIDs: [String] = []
        for title in ["Ship the app", "Run a marathon", "Learn Italian"] {
            let record = try bus.send(.createGoal, user: user, body: #"{"title":"\#(title)"}"#)
            guard case .tenX(let state) = record.state else {
                Issue.record("expected a TenX state, got \(record.state)")
                return
            }
            goalIDs = state.activeGoals.map(\.id)
        }
        #expect(goalIDs.count == 3)
        try expectRefused(bus, .createGoal, user: user, body: #"{"title":"A fourth goal"}"#,
                          code: "too_many_active_goals", app: .tenX)
        try expectRefused(bus, .createGoal, user: user, body: #"{"title":"   "}"#, code: "empty_goal_title", app: .tenX)
        let onboarded = try bus.send(.completeOnboarding, user: user)
        #expect(try bus.timeline(.tenXHome, user: user, as: TenXWidgetSnapshot.self, atLeastVersion: onboarded.version)
            .entries.first?.content.state == .needsSetup)

        func focuses(_ titles: [String], goals: [String]) -> String {
            let items = zip(titles, goals).map { #"{"title":"\#($0)","goalId":"\#($1)"}"# }
            return #"{"focuses":[\#(items.joined(separator: ","))]}"#
        }
        try expectRefused(bus, .createDayEntry, user: user, body: focuses(["a", "b"], goals: goalIDs),
                          code: "wrong_focus_count", app: .tenX)
        try expectRefused(bus, .createDayEntry, user: user, body: focuses(["a", "b", "c", "d"], goals: goalIDs + goalIDs),
                          code: "wrong_focus_count", app: .tenX)
        try expectRefused(bus, .createDayEntry, user: user, body: focuses(["a", "", "c"], goals: goalIDs),
                          code: "empty_focus_title", app: .tenX)
        try expectRefused(bus, .createDayEntry, user: user, body: focuses(["a", "b", "c"], goals: [goalIDs[0], goalIDs[1], "no-such-goal"]),
                          code: "unknown_goal", app: .tenX)

        let day = try bus.send(.createDayEntry, user: user, body: focuses(["Write tests", "10k run", "Duolingo"], goals: goalIDs))
        try expectRefused(bus, .createDayEntry, user: user, body: focuses(["x", "y", "z"], goals: goalIDs),
                          code: "day_already_set", app: .tenX)
        guard case .tenX(let state) = day.state, let focus = state.dayEntries.last?.focuses.first else {
            Issue.record("expected a TenX state with a focus, got \(day.state)")
            return
        }
        let inProgress = try bus.timeline(.tenXHome, user: user, as: TenXWidgetSnapshot.self, atLeastVersion: day.version)
        #expect(inProgress.entries.first?.content.state == .inProgress)
        #expect(inProgress.entries.first?.content.streak == 0, "pending today does not count yet")

        let toggled = try bus.send(.toggleFocus, user: user, body: #"{"focusId":"\#(focus.id)"}"#)
        let snapshot = try bus.timeline(.tenXHome, user: user, as: TenXWidgetSnapshot.self, atLeastVersion: toggled.version)
        #expect(snapshot.entries.first?.content.completedCount == 1)
        #expect(snapshot.entries.first?.content.streak == 1)
        guard case .after(let refresh) = snapshot.policy, let now = snapshot.entries.first?.date else {
            Issue.record("TenX policy must be after(min(now + 30 min, midnight))")
            return
        }
        #expect(refresh.timeIntervalSince(now) <= 30 * 60)

        for goal in goalIDs.dropLast() {
            try bus.send(.archiveGoal, user: user, body: #"{"goalId":"\#(goal)"}"#)
        }
        try expectRefused(bus, .archiveGoal, user: user, body: #"{"goalId":"\#(goalIDs[2])"}"#,
                          code: "last_active_goal", app: .tenX)
    }

    @Test func dietQuickLogRemainingCaloriesAndMidnightInTheUsersZone() throws {
        let bus = try BusFixture()
        try bus.start(.intentHandler)
        try bus.start(.timelineService)
        let user = "uma"
        _ = try bus.sendRaw("SetTimeZone", user: user, body: #"{"timeZone":"America/New_York"}"#)

        try expectRefused(bus, .quickLogFood, user: user, body: #"{"foodId":"oats"}"#, code: "not_synced", app: .diet)
        try bus.send(.updateGoals, user: user, body: #"{"calorieTarget":2000}"#)
        try bus.send(.updateNutrition, user: user, body: #"{"calories":1200,"protein":80,"carbs":150,"fat":40}"#)
        try bus.send(.updateRecentFoods, user: user, body: #"""
            {"foods":[{"id":"oats","name":"Oatmeal","calories":150,"protein":5,"carbs":27,"fat":3,"defaultQuantity":2,"unit":"cup"}]}
            """#)
        try expectRefused(bus, .quickLogFood, user: user, body: #"{"foodId":"pizza"}"#, code: "unknown_food", app: .diet)
        try expectRefused(bus, .updateNutrition, user: user, body: #"{"calories":-5,"protein":0,"carbs":0,"fat":0}"#,
                          code: "invalid_nutrition", app: .diet)

        let logged = try bus.send(.quickLogFood, user: user, body: #"{"foodId":"oats"}"#)
        guard case .foodLog(let entry)? = try bus.pendingRecords(user: user).first else {
            Issue.record("the quick log is not pending for sync")
            return
        }
        #expect(entry.foodId == "oats")
        #expect(entry.calories == 300)

        let timeline = try bus.timeline(.dietProgress, user: user, as: DietWidgetContent.self, atLeastVersion: logged.version)
        guard case .progress(let now) = timeline.entries.first?.content else {
            Issue.record("expected progress content")
            return
        }
        #expect(now.caloriesRemaining == 500)
        #expect(timeline.policy == .atEnd)

        let zone = TimeZone(identifier: "America/New_York")!
        let midnight = LocalCalendar(timeZone: zone).nextMidnight(after: timeline.entries[0].date)
        let midnightEntry = try #require(timeline.entries.first { $0.date == midnight }, "no entry at New York's midnight")
        guard case .progress(let reset) = midnightEntry.content else {
            Issue.record("expected a progress entry at midnight, got \(midnightEntry.content)")
            return
        }
        #expect(reset.caloriesRemaining == 2000, "totals reset at the user's midnight")

        let lock = try bus.timeline(.lockScreen, user: user, as: DietWidgetContent.self, atLeastVersion: logged.version)
        guard case .lockScreen(let lockContent) = lock.entries.first?.content else {
            Issue.record("expected lock-screen content, got \(String(describing: lock.entries.first?.content))")
            return
        }
        #expect(lockContent.caloriesRemaining == 500)
    }

    @Test func stressMeasurementUpdatesTheWidgetAndUpdateWidgetForcesATimeline() throws {
        let bus = try BusFixture()
        try bus.start(.intentHandler)
        try bus.start(.timelineService)
        let beforeMetrics = try bus.widgetctl("timeline", WidgetKind.stressMonitor.rawValue, "--user", "vic")
        #expect(beforeMetrics.status == 1 && (beforeMetrics.stdout + beforeMetrics.stderr).contains("unavailable"),
                "without metrics-ingest's snapshot the widget would show no measurements: older than before")
        try bus.start(.metricsIngest)
        let user = "vic"

        let empty = try bus.timeline(.stressMonitor, user: user, as: StressMonitorEntry.self)
        #expect(empty.entries.first?.content.stressLevel == 50, "the default without data")

        let measured = try bus.send(.recordStressMeasurement, user: user, body: #"{"stressLevel":38,"hrvMilliseconds":52}"#)
        let timeline = try bus.timeline(.stressMonitor, user: user, as: StressMonitorEntry.self, atLeastVersion: measured.version)
        let entry = try #require(timeline.entries.first?.content)
        #expect(entry.stressLevel == 38)
        #expect(entry.category == .mild)
        #expect(entry.hrvHistory == [52])
        #expect(entry.deepLink == "stressmonitor://measurement")
        #expect(timeline.policy == .after(timeline.entries[0].date.addingTimeInterval(15 * 60)))

        try expectRefused(bus, .recordStressMeasurement, user: user, body: #"{"stressLevel":140}"#,
                          code: "invalid_stress_level", app: .stressMonitor)
        try expectRefused(bus, .recordStressMeasurement, user: user, body: #"{"stressLevel":40,"hrvMilliseconds":0}"#,
                          code: "invalid_hrv", app: .stressMonitor)

        let forced = try bus.send(.updateWidget, user: user)
        #expect(forced.version > measured.version, "UpdateWidgetIntent must produce a new timeline")
        #expect(try bus.timeline(.stressMonitor, user: user, as: StressMonitorEntry.self, atLeastVersion: forced.version)
            .stateVersion == forced.version)
    }
}
