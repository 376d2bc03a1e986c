import Foundation
import WidgetDomain

/// Each app's state of a user who has used it for a while, reached through the app's own rules
/// (``WidgetState/reduce(_:context:)``) as intent-handler reaches it: every benchmark starts
/// from a state the rules allow, and a change to the rules changes the fixtures with them.
enum UserStates {
    /// Tension 7 recorded a minute ago: a suggestion waits for its checkmark.
    static var tensionCheckSuggestion: WidgetState { tensionCheck.suggestion }
    /// Picker again after that suggestion was skipped (so the next pick excludes it).
    static var tensionCheckPicker: WidgetState { tensionCheck.picker }

    /// Synced this morning: goals, ten favourites (six kept), today's totals, a configured
    /// Quick Log widget.
    static let diet: WidgetState = {
        var replay = Replay(.diet)
        let goals = NutritionGoalsUpdate(calorieTarget: 2_200, proteinTarget: 140, carbsTarget: 250, fatTarget: 70)
        replay.apply(.diet(.updateGoals(goals)), at: -7_200)
        replay.apply(.diet(.updateRecentFoods(foods: Fixtures.foods)), at: -7_200)
        replay.apply(.diet(.updateNutrition(NutritionTotals(calories: 1_240, protein: 78, carbs: 130, fat: 41))), at: -3_600)
        replay.apply(.diet(.configureWidget(kind: DietWidgetKind.quickLog.rawValue, showMacros: true, compactMode: false)), at: -3_600)
        return replay.state
    }()

    /// A first goal, onboarding not yet completed.
    static var tenXOnboarding: WidgetState { tenX.onboarding }
    /// Onboarded 40 days ago with two active goals and one archived; a day entry (two of three
    /// focuses done) on each of the 30 days before today, as many as retention keeps; none today.
    static var tenXHistory: WidgetState { tenX.history }
    /// ``tenXHistory`` with today's entry, its first focus done.
    static var tenXToday: WidgetState { tenX.today }

    /// A measurement with HRV every hour for the last day: a full 24-value history.
    static let stressMonitor: WidgetState = {
        var replay = Replay(.stressMonitor)
        for hour in (0..<24).reversed() {
            let measuredAt = -Double(hour) * 3_600 - 600
            let input = StressMeasurementInput(
                stressLevel: Double(30 + hour % 5 * 7), hrvMilliseconds: 45 + Double(hour % 6) * 4,
                measuredAt: Fixtures.now.addingTimeInterval(measuredAt))
            replay.apply(.stressMonitor(.recordStressMeasurement(input)), at: measuredAt + 10)
        }
        return replay.state
    }()

    /// Scores sent half an hour ago, no drink being sipped.
    static var jitterScores: WidgetState { jitter.scores }
    /// ``jitterScores`` with a drink started ten minutes ago: the timeline of 180 timer entries.
    static var jitterSipping: WidgetState { jitter.sipping }

    /// The state each app's widgets show in the timeline, snapshot and state-encode benchmarks:
    /// the fullest of each app's states above.
    static func shown(by app: WidgetApp) -> WidgetState {
        switch app {
        case .tensionCheck: tensionCheckSuggestion
        case .diet: diet
        case .tenX: tenXToday
        case .stressMonitor: stressMonitor
        case .jitter: jitterSipping
        }
    }

    /// What Stress Monitor widgets show beside the state: metrics-ingest's aggregate after a
    /// five-minute RR recording every hour for the last day and a stress score, each checked
    /// and applied as metrics-ingest does (``MetricValidation``, ``MetricsAggregate/applying(_:calendar:)``).
    static let metrics: MetricsAggregate = {
        let calendar = LocalCalendar(timeZone: Fixtures.timeZone)
        let recordings = (0..<24).reversed().map { hour in
            MetricSample(
                user: Fixtures.user, takenAt: Fixtures.now.addingTimeInterval(-Double(hour) * 3_600 - 900), source: "chest-strap",
                reading: .rr(intervals: Fixtures.rrIntervals(count: 300, seed: UInt64(hour))))
        }
        let score = MetricSample(user: Fixtures.user, takenAt: Fixtures.now.addingTimeInterval(-300), source: "watch", reading: .stress(score: 41))
        return (recordings + [score]).reduce(MetricsAggregate.empty) { aggregate, sample in
            aggregate.applying(fixture("a metric sample") { try MetricValidation.validate(sample, now: Fixtures.now) }, calendar: calendar)
        }
    }()

    /// The open suggestion's check-in in ``tensionCheckSuggestion``.
    static var openCheckInID: String {
        guard case .tensionCheck(let state) = tensionCheckSuggestion, case .suggestion(_, let checkIn) = state.phase else {
            preconditionFailure("the Tension Check fixture has no open suggestion")
        }
        return checkIn.id
    }

    /// The drink being sipped in ``jitterSipping``.
    static var sippedDrinkID: String {
        guard case .jitter(let state) = jitterSipping, let session = state.session else {
            preconditionFailure("the Jitter fixture has no drink being sipped")
        }
        return session.id
    }

    /// The TenX state inside `state`.
    static func tenXState(_ state: WidgetState) -> TenXState {
        guard case .tenX(let tenX) = state else { preconditionFailure("not a TenX state") }
        return tenX
    }

    /// The focuses of the latest day entry of the TenX state `state`.
    static func latestFocuses(_ state: WidgetState) -> [TenXFocus] {
        tenXState(state).dayEntries.last?.focuses ?? []
    }

    /// One day's focuses as the daily setup submits them, on the active goals of `state`.
    static func focusDrafts(_ state: WidgetState) -> [TenXFocusDraft] {
        let goals = tenXState(state).activeGoals
        return ["Run 8 km at an easy pace", "Fix the sync retry bug", "Plan the long run"].enumerated().map { index, title in
            TenXFocusDraft(title: title, goalId: goals[index % goals.count].id)
        }
    }

    private static let day: TimeInterval = 86_400

    private static let tensionCheck: (suggestion: WidgetState, picker: WidgetState) = {
        var replay = Replay(.tensionCheck)
        replay.apply(.tensionCheck(.recordTension(level: 7)), at: -60)
        let suggestion = replay.state
        replay.apply(.tensionCheck(.resetWidget), at: -50)
        return (suggestion, replay.state)
    }()

    private static let tenX: (onboarding: WidgetState, history: WidgetState, today: WidgetState) = {
        var replay = Replay(.tenX)
        replay.apply(.tenX(.createGoal(title: "Run a marathon")), at: -40 * day)
        let onboarding = replay.state
        replay.apply(.tenX(.createGoal(title: "Ship the app")), at: -40 * day)
        replay.apply(.tenX(.createGoal(title: "Learn Italian")), at: -40 * day)
        replay.apply(.tenX(.completeOnboarding), at: -40 * day)
        replay.apply(.tenX(.archiveGoal(goalId: tenXState(replay.state).goals[2].id)), at: -39 * day)
        for daysAgo in (1...TenXLimits.retainedDays).reversed() {
            replay.enterTenXDay(at: -Double(daysAgo) * day, completing: 2)
        }
        let history = replay.state
        replay.enterTenXDay(at: -1_800, completing: 1)
        return (onboarding, history, replay.state)
    }()

    private static let jitter: (scores: WidgetState, sipping: WidgetState) = {
        var replay = Replay(.jitter)
        let scores = JitterScoresUpdate(
            crashRiskScore: 35, focusScore: 72, currentCaffeineLevel: 180,
            lastDrinkTime: Fixtures.now.addingTimeInterval(-7_200), lastDrinkName: "Flat White")
        replay.apply(.jitter(.updateScores(scores)), at: -1_800)
        let scored = replay.state
        replay.apply(.jitter(.startDrink), at: -600)
        return (scored, replay.state)
    }()
}

/// A user's intents replayed through the rules in order, with one random source throughout so
/// that no two generated ids repeat.
private struct Replay {
    private(set) var state: WidgetState
    private var context = Fixtures.context()

    init(_ app: WidgetApp) {
        state = .initial(for: app)
    }

    /// Applies `intent` at `offset` seconds from ``Fixtures/now``.
    mutating func apply(_ intent: WidgetIntent, at offset: TimeInterval) {
        context.now = Fixtures.now.addingTimeInterval(offset)
        state = fixture("the state after \(intent)") { [state] in try state.reduce(intent, context: &context).state }
    }

    /// Enters the TenX day at `offset` and completes its first `completed` focuses a minute later.
    mutating func enterTenXDay(at offset: TimeInterval, completing completed: Int) {
        apply(.tenX(.createDayEntry(focuses: UserStates.focusDrafts(state))), at: offset)
        for focus in UserStates.latestFocuses(state).prefix(completed) {
            apply(.tenX(.toggleFocus(focusId: focus.id)), at: offset + 60)
        }
    }
}
