/// A message that changes one app's state: a widget button or an app write.
public enum WidgetIntent: Equatable, Sendable {
    case tensionCheck(TensionCheckIntent)

    public var app: WidgetApp {
        switch self {
        case .tensionCheck: .tensionCheck
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
        }
    }
}
