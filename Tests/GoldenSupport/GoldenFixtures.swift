// Shared by WidgetBusProtocolTests and ServiceSupportTests: each of those folders holds a
// symbolic link to this file (Tests/GoldenSupport is no target of its own). Public API only.

import Foundation
import WidgetBusProtocol
import WidgetDomain

/// The fixed values every golden file is encoded from: one user, one clock reading, fixed ids,
/// and the state of each app as the domain's own reducers leave it after a realistic morning
/// (seeded randomness, the user in New York). Change nothing here without re-recording: the
/// golden files are these values' bytes.
enum GoldenFixtures {
    static let user = "alice"
    /// 2026-11-22T09:30:00.123Z (04:30 in New York): every envelope's `sentAt`, and the `now` every
    /// timeline and snapshot file is built at.
    static let now = Date(timeIntervalSince1970: 1_795_339_800.123)
    static let newYork = "America/New_York"
    static let utc = UserProfile.defaultTimeZone
    /// The zones timelines and snapshot files are built in.
    static let zones = [newYork, utc]

    /// A publisher epoch (``PublisherEpoch``).
    static let epoch = "5eed0f0e9b1c2d3a"
    static let requestID = "6a1f0c9e-2b7d-4e55-8c3a-9d41b7e2f009"
    static let replyID = "1650fd4b-31cf-438b-828b-b06239cc2209"
    static let eventID = "3c9d2e71-8b4f-4a06-a5d2-7e1f90b4c6d8"
    static let batchID = "9b2f7d3a-4c1e-4f8a-b6d0-2e5c8a1f3b7d"
    /// A request's W3C trace, and the same trace as intent-handler continues it in its event.
    static let requestTraceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
    static let eventTraceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-b7ad6b7169203331-01"

    /// The state sequence number of each app's state (`StateRecord.version`).
    static let versions: [WidgetApp: UInt64] = [.tensionCheck: 41, .diet: 42, .tenX: 43, .stressMonitor: 44, .jitter: 45]
    /// The version of the Jitter state once the drink is completed.
    static let completedDrinkVersion: UInt64 = 46
    static let profileVersion: UInt64 = 40
    /// The version of alice's metrics aggregate (metrics-ingest's sequence).
    static let metricsVersion: UInt64 = 17
    /// A user's widget push tokens: an iPhone on production covering two kinds, a development
    /// build's on the sandbox.
    static let pushTokens = UserPushTokens(
        user: user,
        tokens: [
            WidgetPushToken(
                token: "5e1f0a7c3b9d2e4f6a8c0b1d3e5f7a9c2b4d6e8f0a1c3e5b7d9f1a3c5e7b9d0f", environment: .production,
                kinds: [.tensionCheck, .jitter]),
            WidgetPushToken(token: "0123456789abcdef0123456789abcdef", environment: .sandbox, kinds: [.stressMonitor]),
        ],
        version: 48)

    static func at(_ offset: TimeInterval) -> Date { now.addingTimeInterval(offset) }

    static func timeZone(_ identifier: String) -> TimeZone { TimeZone(identifier: identifier)! }

    // MARK: Tricky values

    /// Every kind of character a JSON encoder treats specially, for free-text fields.
    static let trickyText =
        "quote \" backslash \\ slash / newline \n tab \t return \r backspace \u{08} form feed \u{0C} "
        + "controls \u{01} \u{1F} nul \u{0} del \u{7F} café e\u{301} emoji 🎉👩‍💻 separators \u{2028} \u{2029} bom \u{FEFF}"

    /// A goal title the TenX rules accept (no control characters) that still needs escaping.
    static let trickyTitle = "Career \"10x\" / side\\projects — café 🚀"

    /// Dates whose millisecond form is easy to get wrong.
    static let edgeDates: [Date] = [
        Date(timeIntervalSince1970: 1_795_339_800.1234),  // sub-millisecond part, rounds down
        Date(timeIntervalSince1970: 1_795_339_800.9996),  // rounds up into the next second
        Date(timeIntervalSince1970: 1_795_339_800.0005),  // half a millisecond
        Date(timeIntervalSince1970: 0),  // the epoch
        Date(timeIntervalSince1970: -14_182_939.75),  // 1969-07-20T20:17:40.250Z, before 1970
        Date(timeIntervalSince1970: 4_102_444_800),  // 2100-01-01T00:00:00Z
        Date(timeIntervalSince1970: 253_402_300_799.999),  // 9999-12-31T23:59:59.999Z
    ]

    /// Doubles whose shortest decimal form is easy to get wrong.
    static let edgeDoubles: [Double] = [
        0.1, 1234.5, 2.0, 1e-7, -12.5, -0.0, 0, 1e15, 999_999_999_999_999, 1e21, 123_456_789.123_456_79,
        .greatestFiniteMagnitude, .leastNonzeroMagnitude, 0.1 + 0.2,
    ]

    // MARK: Inputs the fixture states are built from

    /// The Diet app's favourites (the seventh is dropped: six are kept).
    static let foods: [QuickLogFood] = [
        QuickLogFood(id: "oats", name: "Oatmeal", calories: 150, protein: 5, carbs: 27, fat: 3, defaultQuantity: 1, unit: "bowl"),
        QuickLogFood(
            id: "banana", name: "Banana", calories: 0.89, protein: 0.011, carbs: 0.228, fat: 0.003, defaultQuantity: 120, unit: "g"),
        QuickLogFood(
            id: "pain-au-chocolat", name: "Pain \"au\" chocolat / croissant \\ 🥐", calories: 414, protein: 7.5, carbs: 45.5,
            fat: 22, defaultQuantity: 1, unit: "piece"),
        QuickLogFood(
            id: "cafe-au-lait", name: "Café au lait", calories: 0.46, protein: 0.032, carbs: 0.047, fat: 0.016,
            defaultQuantity: 250, unit: "ml"),
        QuickLogFood(id: "skyr", name: "Skyr", calories: 63, protein: 11, carbs: 4, fat: 0.2, defaultQuantity: 1.5, unit: "cup"),
        QuickLogFood(id: "apple", name: "Apple", calories: 52, protein: 0.3, carbs: 14, fat: 0.2, defaultQuantity: 1, unit: "piece"),
        QuickLogFood(id: "dates", name: "Dates", calories: 20, protein: 0.2, carbs: 5.3, fat: 0, defaultQuantity: 3, unit: "piece"),
    ]

    static let goalsUpdate = NutritionGoalsUpdate(calorieTarget: 1800, proteinTarget: 120.5, fatTarget: 60)
    static let nutrition = NutritionTotals(calories: 1234.5, protein: 80.25, carbs: 150.1, fat: 40)

    static let jitterScores = JitterScoresUpdate(
        crashRiskScore: 72, focusScore: 55, currentCaffeineLevel: 180, lastDrinkTime: at(-5_400.0004),
        lastDrinkName: "Flat White ☕ \"oat\"")

    static let stressInput = StressMeasurementInput(stressLevel: 71.6, hrvMilliseconds: 41, measuredAt: at(-300.0004))

    /// What alice's watch pushed (one `MetricBatch`): her metrics aggregate is these, applied in New York.
    static let metricSamples: [MetricSample] = [
        sample(.stress(score: 44.6), at: -30),
        sample(.hrv(milliseconds: 52.5, measure: .rmssd), at: -10_800),
        sample(.hrv(milliseconds: 47.25, measure: .rmssd), at: -10_200),
        sample(.hrv(milliseconds: 61, measure: .rmssd), at: -3_600),
        sample(.hrv(milliseconds: 39.8, measure: .rmssd), at: -1_200.0004),
        sample(.hrv(milliseconds: 70.1, measure: .sdnn), at: -7_200),
        sample(.rr(intervals: [812, 798, 805.5, 820, 790, 801, 815, 809, 795, 803, 811, 2_500]), at: -600),
    ]

    static func sample(_ reading: MetricSample.Reading, at offset: TimeInterval) -> MetricSample {
        MetricSample(user: user, takenAt: at(offset), source: "Apple Watch", reading: reading)
    }

    /// A batch no server would accept, for the encoding of its numbers and dates alone.
    static let edgeSamples: [MetricSample] =
        [MetricSample(user: "zoë", takenAt: edgeDates[0], source: trickyText, reading: .rr(intervals: edgeDoubles))]
        + edgeDates.dropFirst().enumerated().map { index, date in
            MetricSample(
                user: user, takenAt: date, source: "sensor-\(index)",
                reading: index.isMultiple(of: 2)
                    ? .stress(score: edgeDoubles[index]) : .hrv(milliseconds: edgeDoubles[index], measure: .sdnn))
        }

    // MARK: The states

    /// Every app's state after alice's morning, built once.
    static func world() throws -> World { try builtWorld.get() }

    private static let builtWorld = Result { try World.build() }

    struct World: Sendable {
        var tensionSuggestion: TensionCheckState
        var tensionCompleted: TensionCheckState
        var diet: DietState
        var tenX: TenXState
        /// The drafts of today's `CreateDayEntry`, one carried over from yesterday.
        var tenXTodayDrafts: [TenXFocusDraft]
        var stress: StressMonitorState
        var metrics: MetricsAggregate
        var jitterSipping: JitterState
        var jitterCompleted: JitterState
        var jitterOpenURL: String
        /// A drink started 3 h 55 min ago: the session runs out 5 minutes from now.
        var jitterExpiring: JitterState
        /// The records left pending sync (each at its latest change), with their revisions.
        var pendingRecords: [RevisedRecord]

        /// The state each app's widget kinds show: Tension Check just completed, Jitter sipping.
        func state(of app: WidgetApp) -> WidgetState {
            switch app {
            case .tensionCheck: .tensionCheck(tensionCompleted)
            case .diet: .diet(diet)
            case .tenX: .tenX(tenX)
            case .stressMonitor: .stressMonitor(stress)
            case .jitter: .jitter(jitterSipping)
            }
        }

        func record(of app: WidgetApp) -> StateRecord {
            StateRecord(user: GoldenFixtures.user, app: app, version: GoldenFixtures.versions[app]!, state: state(of: app))
        }

        var records: [StateRecord] { WidgetApp.allCases.map(record(of:)) }

        var suggestedCheckInID: String {
            guard case .suggestion(_, let checkIn) = tensionSuggestion.phase else { preconditionFailure("no suggestion") }
            return checkIn.id
        }

        var archivedGoalID: String { tenX.goals.first(where: \.isArchived)!.id }
        var toggledFocusID: String { tenX.dayEntries.last!.focuses[0].id }
        var drinkSessionID: String { jitterSipping.session!.id }

        static func build() throws -> World {
            // Tension Check: 🙂 an hour ago, 😫 two minutes ago, the suggestion done 2 s ago.
            var tension = Reduction(.tensionCheck, seed: 2026)
            try tension.apply(.tensionCheck(.recordTension(level: 3)), at: -3_600)
            try tension.apply(.tensionCheck(.recordTension(level: 10)), at: -120)
            guard case .tensionCheck(let suggestion) = tension.state, case .suggestion(_, let checkIn) = suggestion.phase else {
                throw FixtureError("level 10 did not suggest an intervention")
            }
            try tension.apply(.tensionCheck(.markInterventionDone(checkInId: checkIn.id)), at: -2)
            guard case .tensionCheck(let completed) = tension.state else { throw FixtureError("not a Tension Check state") }

            // Diet: goals, favourites and totals from the app, two widgets configured, a banana logged.
            var diet = Reduction(.diet, seed: 7)
            try diet.apply(.diet(.updateGoals(goalsUpdate)), at: -7_200)
            try diet.apply(.diet(.updateRecentFoods(foods: foods)), at: -3_600)
            try diet.apply(.diet(.updateNutrition(nutrition)), at: -1_800)
            try diet.apply(.diet(.configureWidget(kind: "QuickLogWidget", showMacros: false, compactMode: true)), at: -900)
            try diet.apply(.diet(.configureWidget(kind: "LockScreenWidget", showMacros: nil, compactMode: true)), at: -800)
            try diet.apply(.diet(.quickLogFood(foodId: "banana")), at: -600)
            guard case .diet(let dietState) = diet.state else { throw FixtureError("not a Diet state") }

            // TenX: three goals (one archived), yesterday one focus of three done, today two of
            // three, two of them carried over from yesterday.
            var tenX = Reduction(.tenX, seed: 10)
            let day: TimeInterval = 86_400
            try tenX.apply(.tenX(.createGoal(title: "Health 🏃‍♀️")), at: -3 * day)
            try tenX.apply(.tenX(.createGoal(title: "  \(trickyTitle)  ")), at: -3 * day + 1)
            try tenX.apply(.tenX(.createGoal(title: "Learn Go")), at: -3 * day + 2)
            try tenX.apply(.tenX(.completeOnboarding), at: -3 * day + 3)
            var goals = try tenX.tenX().goals
            try tenX.apply(.tenX(.archiveGoal(goalId: goals[2].id)), at: -3 * day + 4)
            goals = try tenX.tenX().goals
            try tenX.apply(
                .tenX(.createDayEntry(focuses: [
                    TenXFocusDraft(title: "Run 5k", goalId: goals[0].id),
                    TenXFocusDraft(title: "Ship the \"golden\" tests", goalId: goals[1].id),
                    TenXFocusDraft(title: "Read 20 pages", goalId: goals[0].id),
                ])), at: -day)
            try tenX.apply(.tenX(.toggleFocus(focusId: try tenX.tenX().dayEntries.last!.focuses[0].id)), at: -day + 60)
            let today = LocalCalendar(timeZone: GoldenFixtures.timeZone(newYork)).dayKey(for: now)
            let todayDrafts = TenXCarryOver.drafts(for: today, in: try tenX.tenX())
                + [TenXFocusDraft(title: "Stretch 10 min", goalId: goals[0].id)]
            try tenX.apply(.tenX(.createDayEntry(focuses: todayDrafts)), at: -600)
            let todayFocuses = try tenX.tenX().dayEntries.last!.focuses
            try tenX.apply(.tenX(.toggleFocus(focusId: todayFocuses[0].id)), at: -300)
            try tenX.apply(.tenX(.toggleFocus(focusId: todayFocuses[2].id)), at: -240)

            // Stress Monitor: three measurements this morning, then a widget refresh.
            var stress = Reduction(.stressMonitor, seed: 1)
            try stress.apply(.stressMonitor(.recordStressMeasurement(StressMeasurementInput(stressLevel: 62.4, hrvMilliseconds: 48.5))), at: -10_800)
            try stress.apply(
                .stressMonitor(.recordStressMeasurement(
                    StressMeasurementInput(stressLevel: 38, hrvMilliseconds: 55.25, measuredAt: at(-7_230.5)))), at: -7_200)
            try stress.apply(.stressMonitor(.recordStressMeasurement(stressInput)), at: -300)
            try stress.apply(.stressMonitor(.updateWidget), at: -60)
            guard case .stressMonitor(let stressState) = stress.state else { throw FixtureError("not a Stress Monitor state") }

            // Her watch's samples, as metrics-ingest aggregates them in her zone.
            let calendar = LocalCalendar(timeZone: GoldenFixtures.timeZone(newYork))
            var metrics = MetricsAggregate.empty
            for sample in metricSamples {
                metrics = metrics.applying(try MetricValidation.validate(sample, now: now), calendar: calendar)
            }

            // Jitter: scores from the app, a drink started 2 min 5 s ago, then completed now.
            var jitter = Reduction(.jitter, seed: 5)
            try jitter.apply(.jitter(.updateScores(jitterScores)), at: -5_400)
            try jitter.apply(.jitter(.startDrink), at: -125)
            guard case .jitter(let sipping) = jitter.state, let session = sipping.session else {
                throw FixtureError("no drink session")
            }
            try jitter.apply(.jitter(.completeDrink(sessionId: session.id)), at: 0)
            guard case .jitter(let drunk) = jitter.state, let openURL = jitter.openURL else { throw FixtureError("no open URL") }
            var expiring = Reduction(.jitter, seed: 6, from: .jitter(JitterState(scores: sipping.scores)))
            try expiring.apply(.jitter(.startDrink), at: -(DrinkSession.maximumDuration - 300))
            guard case .jitter(let expiringState) = expiring.state else { throw FixtureError("not a Jitter state") }

            return World(
                tensionSuggestion: suggestion, tensionCompleted: completed, diet: dietState, tenX: try tenX.tenX(),
                tenXTodayDrafts: todayDrafts, stress: stressState, metrics: metrics, jitterSipping: sipping,
                jitterCompleted: drunk, jitterOpenURL: openURL, jitterExpiring: expiringState,
                pendingRecords: tension.revised(versions[.tensionCheck]!) + diet.revised(versions[.diet]!)
                    + jitter.revised(completedDrinkVersion))
        }
    }

    /// An app's state driven through the domain's reducer as intent-handler drives it: one
    /// context (the user in New York, seeded randomness) whose clock is set per message.
    struct Reduction {
        var state: WidgetState
        var records: [PendingRecord] = []
        var openURL: String?
        var context: ReduceContext

        init(_ app: WidgetApp, seed: UInt64, from state: WidgetState? = nil) {
            self.state = state ?? .initial(for: app)
            context = ReduceContext(
                now: GoldenFixtures.now, timeZone: GoldenFixtures.timeZone(GoldenFixtures.newYork),
                random: RandomSource(SeededRandom(seed: seed)))
        }

        mutating func apply(_ intent: WidgetIntent, at offset: TimeInterval) throws {
            context.now = GoldenFixtures.at(offset)
            let transition = try state.reduce(intent, context: &context)
            state = transition.state
            for record in transition.records {
                records.removeAll { $0.id == record.id }
                records.append(record)
            }
            openURL = transition.openURL
        }

        func tenX() throws -> TenXState {
            guard case .tenX(let state) = state else { throw FixtureError("not a TenX state") }
            return state
        }

        func revised(_ revision: UInt64) -> [RevisedRecord] {
            records.map { RevisedRecord(revision: revision, record: $0) }
        }
    }

    struct FixtureError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}

// MARK: - Timelines

/// One timeline golden: a widget kind, which of the fixture states it shows, and the user's zone.
/// The protocol tests encode its ``body()`` as a `TimelineBody`; the snapshot tests put the same
/// body in a snapshot file.
struct TimelineSpec: Sendable, Hashable, CustomStringConvertible {
    enum Variant: String, Sendable {
        /// The app's fixture state (Tension Check completed, Jitter sipping); Stress Monitor with metrics.
        case current
        /// Tension Check while the suggestion waits.
        case suggestion
        /// Stress Monitor from its state alone (metrics-ingest has nothing of the user).
        case noMetrics = "no-metrics"
        /// Stress Monitor of a user with metrics and no state.
        case metricsOnly = "metrics-only"
        /// Jitter with a drink that runs out within the timeline.
        case expiring
        /// A user with no state and no metrics.
        case initial
    }

    var kind: WidgetKind
    var variant: Variant
    /// The IANA zone identifier, as the user's profile holds it.
    var zone: String

    /// `<kind>[-<variant>]-<zone>`, e.g. `JitterWidget-America_New_York`.
    var name: String {
        [kind.rawValue, variant == .current ? nil : variant.rawValue, zone.replacingOccurrences(of: "/", with: "_")]
            .compactMap { $0 }.joined(separator: "-")
    }

    var description: String { name }

    /// Whether snapshot-writer keeps a file for this widget: the user has state of its app, or
    /// metrics for a kind that shows them.
    var hasSnapshotFile: Bool { variant != .initial }

    /// Every kind in both zones, plus the variants that take other paths through the builders.
    static let all: [TimelineSpec] =
        WidgetKind.allCases.flatMap { kind in GoldenFixtures.zones.map { TimelineSpec(kind: kind, variant: .current, zone: $0) } }
        + GoldenFixtures.zones.map { TimelineSpec(kind: .stressMonitor, variant: .noMetrics, zone: $0) }
        + [
            TimelineSpec(kind: .stressMonitor, variant: .metricsOnly, zone: GoldenFixtures.utc),
            TimelineSpec(kind: .tensionCheck, variant: .suggestion, zone: GoldenFixtures.newYork),
            TimelineSpec(kind: .jitter, variant: .expiring, zone: GoldenFixtures.newYork),
        ]
        + WidgetKind.allCases.map { TimelineSpec(kind: $0, variant: .initial, zone: GoldenFixtures.utc) }

    /// The body timeline-service answers with at ``GoldenFixtures/now`` (as `WidgetReplicas.timeline` builds it).
    func body() throws -> TimelineBody {
        let world = try GoldenFixtures.world()
        var state: WidgetState? = world.state(of: kind.app)
        var metrics: MetricsAggregate? = kind.showsMetrics ? world.metrics : nil
        switch variant {
        case .current: break
        case .suggestion: state = .tensionCheck(world.tensionSuggestion)
        case .noMetrics: metrics = nil
        case .metricsOnly: state = nil
        case .expiring: state = .jitter(world.jitterExpiring)
        case .initial: (state, metrics) = (nil, nil)
        }
        return TimelineBody(
            kind: kind, user: GoldenFixtures.user, stateVersion: state == nil ? 0 : GoldenFixtures.versions[kind.app]!,
            metricsVersion: kind.showsMetrics ? (metrics == nil ? 0 : GoldenFixtures.metricsVersion) : nil,
            profileVersion: zone == GoldenFixtures.utc ? 0 : GoldenFixtures.profileVersion, timeZone: zone, generatedAt: GoldenFixtures.now,
            timeline: (state ?? .initial(for: kind.app)).timeline(
                for: kind, now: GoldenFixtures.now, timeZone: GoldenFixtures.timeZone(zone), metrics: metrics))
    }
}
