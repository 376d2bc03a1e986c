/// What a TenX widget shows, derived from the state at one instant in the user's zone.
public enum TenXSnapshotState: String, Codable, Sendable, CaseIterable {
    /// "Open app to set goals": onboarding not finished or no active goal.
    case needsOnboarding
    /// No entry for today yet.
    case needsSetup
    /// Today is set and fewer than three focuses are done.
    case inProgress
    /// All three of today's focuses are done.
    case complete

    /// Where a tap on the widget takes the user.
    public var deepLink: TenXDeepLink {
        switch self {
        case .needsOnboarding: .goals
        case .needsSetup: .setup
        case .inProgress, .complete: .home
        }
    }
}
