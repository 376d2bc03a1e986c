/// The Jitter widget's buttons and the Jitter app's writes.
public enum JitterIntent: Equatable, Sendable {
    /// "Add Drink": `StartDrinkIntent {}`.
    case startDrink
    /// The green checkmark: `CompleteDrinkIntent {sessionId}`.
    case completeDrink(sessionId: String)
    /// The app's latest scores: `UpdateJitterScores {crashRiskScore, focusScore,
    /// currentCaffeineLevel, lastDrinkTime?, lastDrinkName?}`.
    case updateScores(JitterScoresUpdate)
}
