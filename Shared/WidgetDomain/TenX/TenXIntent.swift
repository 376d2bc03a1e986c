/// Every write to a user's TenX state. The widgets have no buttons (taps open deep links), so
/// these are the main app's writes to the user's TenX state, travelling the intent path.
public enum TenXIntent: Equatable, Sendable {
    /// `CreateGoal {title}`: a new active goal; its id comes from the context.
    case createGoal(title: String)
    /// `ArchiveGoal {goalId}`.
    case archiveGoal(goalId: String)
    /// `UnarchiveGoal {goalId}`.
    case unarchiveGoal(goalId: String)
    /// `CompleteOnboarding {}`: marks onboarding finished (`hasCompletedOnboarding = true`).
    case completeOnboarding
    /// `CreateDayEntry {focuses}`: today's three focuses ("Start Day").
    case createDayEntry(focuses: [TenXFocusDraft])
    /// `ToggleFocus {focusId}`: complete or un-complete one of today's focuses.
    case toggleFocus(focusId: String)
}
