/// A message that changes one app's state: a widget button or an app write.
public enum WidgetIntent: Equatable, Sendable {
    case tensionCheck(TensionCheckIntent)
    case diet(DietIntent)
    case tenX(TenXIntent)
    case stressMonitor(StressMonitorIntent)
    case jitter(JitterIntent)

    public var app: WidgetApp {
        switch self {
        case .tensionCheck: .tensionCheck
        case .diet: .diet
        case .tenX: .tenX
        case .stressMonitor: .stressMonitor
        case .jitter: .jitter
        }
    }
}

extension WidgetState {
    /// Applies `intent` to this state (of the same app).
    ///
    /// - Throws: a ``RuleViolation`` when a rule refuses the intent; the state is unchanged.
    public func reduce(_ intent: WidgetIntent, context: inout ReduceContext) throws(RuleViolation)
        -> Transition<WidgetState>
    {
        switch (self, intent) {
        case (.tensionCheck(let state), .tensionCheck(let intent)):
            try TensionCheckStateMachine.reduce(state, intent, context: &context).map(WidgetState.tensionCheck)
        case (.diet(let state), .diet(let intent)):
            try DietStateMachine.reduce(state, intent, context: &context).map(WidgetState.diet)
        case (.tenX(let state), .tenX(let intent)):
            try TenXStateMachine.reduce(state, intent, context: &context).map(WidgetState.tenX)
        case (.stressMonitor(let state), .stressMonitor(let intent)):
            try StressMonitorStateMachine.reduce(state, intent, context: &context).map(WidgetState.stressMonitor)
        case (.jitter(let state), .jitter(let intent)):
            try JitterStateMachine.reduce(state, intent, context: &context).map(WidgetState.jitter)
        default:
            preconditionFailure("\(intent.app.rawValue) intent applied to \(app.rawValue) state")
        }
    }
}
