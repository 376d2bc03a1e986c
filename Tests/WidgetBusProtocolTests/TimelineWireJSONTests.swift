import Foundation
import Testing
import WidgetDomain
@testable import WidgetBusProtocol

/// The wire writes timelines directly (``TimelineBody/writeWireJSON(to:)``), not through their
/// `Codable` conformances; both must give the same bytes. Each case encodes a timeline body with
/// the wire's codec and with `JSONEncoder` (which takes the `Codable` path) and compares them —
/// for every golden timeline, and for contents with every optional field present and absent.
@Suite("Timelines written directly match their Codable encoding")
struct TimelineWireJSONTests {
    static let now = GoldenFixtures.now
    static let tricky = GoldenFixtures.trickyText

    func expectSameBytes(_ body: TimelineBody, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let expected = try WireJSONEncoderTests.foundationEncoder().encode(body)
        let written = try WireCodec().encode(body)
        #expect(String(decoding: written, as: UTF8.self) == String(decoding: expected, as: UTF8.self), sourceLocation: sourceLocation)
        // Spliced inside an event, as timeline-service publishes it.
        let event = TimelineChangedBody(epoch: GoldenFixtures.epoch, sequence: 7, causedBy: "x", timeline: body)
        #expect(
            String(decoding: try WireCodec().encode(event), as: UTF8.self)
                == String(decoding: try WireJSONEncoderTests.foundationEncoder().encode(event), as: UTF8.self),
            sourceLocation: sourceLocation)
    }

    static func body(_ kind: WidgetKind, _ timeline: WidgetTimeline, metricsVersion: UInt64? = nil) -> TimelineBody {
        TimelineBody(
            kind: kind, user: "user \"q\"", stateVersion: 9, metricsVersion: metricsVersion, timeZone: "America/New_York",
            generatedAt: now, timeline: timeline)
    }

    static func entries<Content>(_ contents: [Content]) -> [TimelineEntry<Content>] {
        contents.enumerated().map { TimelineEntry(date: GoldenFixtures.edgeDates[$0.offset % GoldenFixtures.edgeDates.count], content: $0.element) }
    }

    static let policies: [ReloadPolicy] = [.atEnd, .never, .after(GoldenFixtures.edgeDates[1])]

    @Test("every golden timeline", arguments: TimelineSpec.all)
    func goldenTimelines(spec: TimelineSpec) throws {
        try expectSameBytes(try spec.body())
    }

    @Test("Tension Check phases", arguments: policies)
    func tensionCheck(policy: ReloadPolicy) throws {
        let suggestion = InterventionSuggestion.pool[0]
        let phases: [TensionCheckPhase] = [
            .picker,
            .suggestion(intervention: suggestion, checkIn: StressCheckIn(
                id: "c1", tensionLevel: 7, suggestedInterventionId: suggestion.interventionId, interventionCompleted: true, createdAt: Self.now)),
            .suggestion(intervention: suggestion, checkIn: StressCheckIn(id: Self.tricky, tensionLevel: 10, suggestedInterventionId: nil, createdAt: Self.now)),
            .completed(interventionName: Self.tricky, checkInId: "c2", resetAt: Self.now),
        ]
        try expectSameBytes(Self.body(.tensionCheck, .tensionCheck(Timeline(entries: Self.entries(phases), policy: policy))))
    }

    @Test("Diet contents of every kind", arguments: policies)
    func diet(policy: ReloadPolicy) throws {
        let day = DayKey(year: 2026, month: 11, day: 22)
        let configuration = DietWidgetConfiguration(showMacros: false, compactMode: true)
        let nutrition = NutritionTotals(calories: 1234.5, protein: 0.1, carbs: 1e-7, fat: 65)
        let contents: [DietWidgetContent] = [
            .progress(DietProgressContent(view: .placeholder, configuration: .default)),
            .progress(DietProgressContent(
                view: .progress, dayKey: day, calorieProgress: 0.617, caloriesRemaining: -12.25, nutrition: nutrition,
                goals: .default, macros: MacroProgress.all(nutrition: nutrition, goals: .default), configuration: configuration)),
            .quickLog(QuickLogContent(view: .empty, message: QuickLogContent.emptyMessage, configuration: configuration)),
            .quickLog(QuickLogContent(view: .foods, dayKey: day, foods: [
                QuickLogButton(id: "oatmeal", name: Self.tricky, calories: 150, defaultQuantity: 1.5, unit: "bowl"),
                QuickLogButton(id: "tea", name: "Tea", calories: nil, defaultQuantity: 1, unit: "cup/mug"),
            ], configuration: .default)),
            .quickLog(QuickLogContent(view: .foods, dayKey: day, foods: [], configuration: .default)),
            .lockScreen(DietLockScreenContent(
                view: .syncRequired, calorieProgress: 0, rectangularText: "Open app to sync", inlineText: "Sync required",
                configuration: .default)),
            .lockScreen(DietLockScreenContent(
                view: .calories, dayKey: day, calorieProgress: 0.5, caloriesRemaining: 1000, rectangularText: Self.tricky,
                inlineText: "1000 calories remaining", configuration: configuration)),
        ]
        for kind in [WidgetKind.dietProgress, .quickLog, .lockScreen] {
            try expectSameBytes(Self.body(kind, .diet(Timeline(entries: Self.entries(contents), policy: policy))))
        }
    }

    @Test("TenX snapshots", arguments: policies)
    func tenX(policy: ReloadPolicy) throws {
        let day = DayKey(year: 2026, month: 11, day: 22)
        let snapshots = [
            TenXWidgetSnapshot(
                state: .needsOnboarding, focuses: [], streak: 0, completedCount: 0, dayKey: day, generatedAt: Self.now,
                deepLink: .goals),
            TenXWidgetSnapshot(
                state: .inProgress,
                focuses: [
                    TenXWidgetFocus(id: "f1", title: Self.tricky, goalId: "g1", goalTitle: GoldenFixtures.trickyTitle, isCompleted: true, carriedFromDayKey: day.previous),
                    TenXWidgetFocus(id: "f2", title: "Walk", goalId: "g2", goalTitle: nil, isCompleted: false, carriedFromDayKey: nil),
                ],
                streak: 12, completedCount: 1, dayKey: day, generatedAt: GoldenFixtures.edgeDates[4], deepLink: .home),
        ]
        try expectSameBytes(Self.body(.tenXHome, .tenX(Timeline(entries: Self.entries(snapshots), policy: policy))))
    }

    @Test("Stress Monitor entries", arguments: policies)
    func stressMonitor(policy: ReloadPolicy) throws {
        let entries = [
            StressMonitorEntry(stressLevel: 38, hrvHistory: [], hrvAverage: 0, hrvMax: 0, trend: nil, measuredAt: nil),
            StressMonitorEntry(
                stressLevel: 81, hrvHistory: [42.5, 0.1, 1e-7, 100], hrvAverage: 35.65, hrvMax: 100,
                trend: HRVTrend(latest: 30, average: 40), measuredAt: Self.now),
        ]
        try expectSameBytes(Self.body(.stressMonitor, .stressMonitor(Timeline(entries: Self.entries(entries), policy: policy)), metricsVersion: 17))
    }

    @Test("Jitter contents", arguments: policies)
    func jitter(policy: ReloadPolicy) throws {
        let contents = [
            JitterWidgetContent(scores: nil),
            JitterWidgetContent(
                view: .sipping, isPlaceholder: false, focusScore: 78, crashRiskScore: 91, currentCaffeineLevel: 120,
                riskLevel: .high, riskColor: .red, lastDrinkTime: Self.now, lastDrinkName: Self.tricky, lastUpdated: GoldenFixtures.edgeDates[2],
                sessionId: "s1", sessionStartTime: Self.now, elapsedSeconds: 125, elapsed: "2:05"),
        ]
        try expectSameBytes(Self.body(.jitter, .jitter(Timeline(entries: Self.entries(contents), policy: policy))))
    }
}
