import Foundation
import Testing
@testable import WidgetDomain

@Suite("StressMonitorStateMachine")
struct StressMonitorStateMachineTests {
    typealias Machine = StressMonitorStateMachine
    let now = StressFixture.now

    static func refusal(_ input: StressMeasurementInput, in state: StressMonitorState = .initial) -> RuleViolation? {
        var context = StressFixture.context()
        return ruleViolation { _ = try Machine.reduce(state, .recordStressMeasurement(input), context: &context) }
    }

    @Test func aMeasurementBecomesCurrentAndAddsItsHRV() throws {
        var context = StressFixture.context()
        let input = StressMeasurementInput(stressLevel: 38, hrvMilliseconds: 52.5, measuredAt: now.addingTimeInterval(-60))
        let transition = try Machine.reduce(.initial, .recordStressMeasurement(input), context: &context)
        #expect(transition.state == StressMonitorState(
            latest: StressMeasurement(stressLevel: 38, measuredAt: now.addingTimeInterval(-60)),
            hrvHistory: [HRVSample(milliseconds: 52.5, measuredAt: now.addingTimeInterval(-60))]))
        #expect(transition.state.latest?.category == .mild)
        #expect(transition.records.isEmpty)
        #expect(transition.openURL == nil)
    }

    @Test func withoutMeasuredAtTheMeasurementIsNow() throws {
        let state = try StressFixture.record(.initial, stress: 70)
        #expect(state.latest == StressMeasurement(stressLevel: 70, measuredAt: now))
        #expect(state.hrvHistory.isEmpty, "no HRV, no history")
    }

    @Test("fractional scores round half away from zero", arguments: [
        (44.5, 45), (44.49, 44), (0.4, 0), (99.5, 100), (100, 100), (0, 0),
    ])
    func rounding(raw: Double, stored: Int) throws {
        #expect(try StressFixture.record(.initial, stress: raw).latest?.stressLevel == stored)
    }

    @Test("stress outside 0–100 is refused", arguments: [-0.01, -1, 100.01, 101, 1e9, .infinity, -.infinity, .nan])
    func invalidStress(value: Double) {
        let violation = Self.refusal(StressMeasurementInput(stressLevel: value))
        #expect(violation?.code == "invalid_stress_level")
    }

    @Test("HRV outside 1–300 ms is refused", arguments: [0, 0.99, 300.01, -5, .infinity, .nan])
    func invalidHRV(value: Double) {
        let violation = Self.refusal(StressMeasurementInput(stressLevel: 40, hrvMilliseconds: value))
        #expect(violation?.code == "invalid_hrv")
    }

    @Test("HRV bounds are inclusive", arguments: [1.0, 300])
    func hrvBounds(value: Double) throws {
        #expect(try StressFixture.record(.initial, stress: 40, hrv: value).hrvHistory.map(\.milliseconds) == [value])
    }

    @Test func measuredAtMayLeadByFiveMinutesAtMost() throws {
        #expect(try StressFixture.record(.initial, stress: 40, at: now.addingTimeInterval(300)).latest?.measuredAt
            == now.addingTimeInterval(300))
        let violation = Self.refusal(StressMeasurementInput(stressLevel: 40, measuredAt: now.addingTimeInterval(301)))
        #expect(violation?.code == "measurement_in_future")
    }

    @Test func measuredAtMayBeSevenDaysOldAtMost() throws {
        let week = 7 * 86_400.0
        #expect(try StressFixture.record(.initial, stress: 40, at: now.addingTimeInterval(-week)).latest != nil)
        let violation = Self.refusal(StressMeasurementInput(stressLevel: 40, measuredAt: now.addingTimeInterval(-week - 1)))
        #expect(violation?.code == "measurement_too_old")
    }

    @Test func validationOrderIsStressHRVThenTime() {
        let everythingWrong = StressMeasurementInput(stressLevel: 200, hrvMilliseconds: 0, measuredAt: .distantPast)
        #expect(Self.refusal(everythingWrong)?.code == "invalid_stress_level")
        #expect(Self.refusal(StressMeasurementInput(stressLevel: 20, hrvMilliseconds: 0, measuredAt: .distantPast))?.code == "invalid_hrv")
    }

    @Test func anOlderMeasurementDoesNotReplaceTheCurrentScore() throws {
        let current = try StressFixture.record(.initial, stress: 30, hrv: 50, at: now)
        let late = try StressFixture.record(current, stress: 90, hrv: 40, at: now.addingTimeInterval(-600))
        #expect(late.latest == StressMeasurement(stressLevel: 30, measuredAt: now))
        #expect(late.hrvValues == [40, 50], "its HRV still joins the history in time order")
    }

    @Test func aMeasurementAtTheSameInstantReplacesTheCurrentScore() throws {
        let first = try StressFixture.record(.initial, stress: 30, hrv: 50, at: now)
        let corrected = try StressFixture.record(first, stress: 35, hrv: 55, at: now)
        #expect(corrected.latest == StressMeasurement(stressLevel: 35, measuredAt: now))
        #expect(corrected.hrvValues == [55])
    }

    @Test func historyStaysAtTwentyFourInTimeOrder() throws {
        let state = try StressFixture.history((1...30).map(Double.init))
        #expect(state.hrvHistory.count == 24)
        #expect(state.hrvValues == (7...30).map(Double.init))
        #expect(state.hrvHistory.map(\.measuredAt) == state.hrvHistory.map(\.measuredAt).sorted())
    }

    @Test func refusalsChangeNothing() throws {
        let state = try StressFixture.history([50, 60])
        var context = StressFixture.context()
        var current = state
        do {
            current = try Machine.reduce(state, .recordStressMeasurement(StressMeasurementInput(stressLevel: 101, hrvMilliseconds: 70)), context: &context).state
            Issue.record("stress 101 was accepted")
        } catch {
            #expect(error.code == "invalid_stress_level")
        }
        #expect(current == state)
    }

    @Test func updateWidgetRecordsTheRequestSoTheStateChanges() throws {
        let state = try StressFixture.history([50, 60])
        var context = StressFixture.context(now: now.addingTimeInterval(90))
        let transition = try Machine.reduce(state, .updateWidget, context: &context)
        #expect(transition.state != state)
        #expect(transition.state.refreshRequestedAt == now.addingTimeInterval(90))
        #expect(transition.state.latest == state.latest && transition.state.hrvHistory == state.hrvHistory)
        var later = StressFixture.context(now: now.addingTimeInterval(120))
        #expect(try Machine.reduce(transition.state, .updateWidget, context: &later).state != transition.state)
        #expect(StressMonitorState.initial == StressMonitorState(latest: nil, hrvHistory: [], refreshRequestedAt: nil))
    }
}
