/// The Tension Check widget's buttons, one App Intent each.
public enum TensionCheckIntent: Equatable, Sendable {
    /// An emoji tap: `RecordTensionIntent {level}`.
    case recordTension(level: Int)
    /// The checkmark on the suggestion: `MarkInterventionDoneIntent {checkInId}`.
    case markInterventionDone(checkInId: String)
    /// Skip: `ResetWidgetIntent {}`.
    case resetWidget
}
