import Foundation

/// Stress Monitor's rules: validate a measurement, keep the newest as "current", keep the last
/// 24 HRV readings in time order; a refresh request forces a new timeline.
public enum StressMonitorStateMachine {
    public static func reduce(
        _ state: StressMonitorState,
        _ intent: StressMonitorIntent,
        context: inout ReduceContext
    ) throws(RuleViolation) -> Transition<StressMonitorState> {
        switch intent {
        case .recordStressMeasurement(let input):
            return try record(state, input, now: context.now)
        case .updateWidget:
            var next = state
            next.refreshRequestedAt = context.now
            return Transition(state: next)
        }
    }

    /// A measurement older than the current one still adds its HRV reading to the history but
    /// does not replace the current score; arrival order never decides what is "current".
    private static func record(_ state: StressMonitorState, _ input: StressMeasurementInput, now: Date)
        throws(RuleViolation) -> Transition<StressMonitorState>
    {
        guard input.stressLevel.isFinite, StressMonitorLimits.stressLevelRange.contains(input.stressLevel) else {
            throw .invalidStressLevel(input.stressLevel)
        }
        if let hrv = input.hrvMilliseconds {
            guard hrv.isFinite, StressMonitorLimits.hrvRange.contains(hrv) else { throw .invalidHRV(hrv) }
        }
        let measuredAt = input.measuredAt ?? now
        guard measuredAt <= now.addingTimeInterval(StressMonitorLimits.futureSkew) else {
            throw .stressMeasurementInFuture(measuredAt, now: now)
        }
        guard measuredAt >= now.addingTimeInterval(-StressMonitorLimits.maxMeasurementAge) else {
            throw .stressMeasurementTooOld(measuredAt, now: now)
        }

        var next = state
        if state.latest.map({ measuredAt >= $0.measuredAt }) ?? true {
            next.latest = StressMeasurement(stressLevel: Int(input.stressLevel.rounded()), measuredAt: measuredAt)
        }
        if let hrv = input.hrvMilliseconds {
            next.hrvHistory = HRVHistory.inserting(HRVSample(milliseconds: hrv, measuredAt: measuredAt), into: state.hrvHistory)
        }
        return Transition(state: next)
    }
}
