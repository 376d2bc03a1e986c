import Foundation
@testable import WidgetDomain

/// Fixed inputs for the Stress Monitor tests.
enum StressFixture {
    static let now = Fixture.now

    static func context(now: Date = StressFixture.now) -> ReduceContext {
        ReduceContext(now: now, timeZone: Fixture.timeZone, random: RandomSource(SeededRandom(seed: 1)))
    }

    static func record(
        _ state: StressMonitorState, stress: Double, hrv: Double? = nil, at measuredAt: Date? = nil,
        now: Date = StressFixture.now
    ) throws -> StressMonitorState {
        var context = context(now: now)
        let input = StressMeasurementInput(stressLevel: stress, hrvMilliseconds: hrv, measuredAt: measuredAt)
        return try StressMonitorStateMachine.reduce(state, .recordStressMeasurement(input), context: &context).state
    }

    /// `values` recorded a minute apart, the last one at `now`.
    static func history(_ values: [Double], stress: Double = 40) throws -> StressMonitorState {
        var state = StressMonitorState.initial
        for (index, value) in values.enumerated() {
            state = try record(state, stress: stress, hrv: value, at: now.addingTimeInterval(Double(index - values.count + 1) * 60))
        }
        return state
    }
}
