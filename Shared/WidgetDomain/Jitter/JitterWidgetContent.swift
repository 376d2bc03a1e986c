import Foundation

/// What the Jitter widget shows at one instant: the scores, or the sipping timer.
///
/// The score fields are always present: the timer view is drawn over the same data. Before the
/// app's first scores they hold ``placeholderScores`` with `isPlaceholder` set and the colour
/// gray, since the band would describe numbers that are not the user's.
public struct JitterWidgetContent: Codable, Equatable, Sendable {
    public enum View: String, Codable, Sendable {
        case scores, sipping
    }

    public var view: View
    public var isPlaceholder: Bool
    public var focusScore: Int
    public var crashRiskScore: Int
    public var currentCaffeineLevel: Int
    public var riskLevel: CrashRiskLevel
    public var riskColor: CrashRiskColor
    public var lastDrinkTime: Date?
    public var lastDrinkName: String?
    public var lastUpdated: Date?
    /// The session the checkmark completes (sipping only).
    public var sessionId: String?
    public var sessionStartTime: Date?
    public var elapsedSeconds: Int?
    /// `HH:MM:SS` since the session started.
    public var elapsed: String?

    /// Shown until the app's first scores: crash risk 42 ("medium"), focus 78, caffeine 85.
    public static let placeholderScores = (crashRiskScore: 42, focusScore: 78, currentCaffeineLevel: 85)

    public init(
        view: View, isPlaceholder: Bool, focusScore: Int, crashRiskScore: Int, currentCaffeineLevel: Int,
        riskLevel: CrashRiskLevel, riskColor: CrashRiskColor, lastDrinkTime: Date? = nil, lastDrinkName: String? = nil,
        lastUpdated: Date? = nil, sessionId: String? = nil, sessionStartTime: Date? = nil, elapsedSeconds: Int? = nil,
        elapsed: String? = nil
    ) {
        self.view = view
        self.isPlaceholder = isPlaceholder
        self.focusScore = focusScore
        self.crashRiskScore = crashRiskScore
        self.currentCaffeineLevel = currentCaffeineLevel
        self.riskLevel = riskLevel
        self.riskColor = riskColor
        self.lastDrinkTime = lastDrinkTime
        self.lastDrinkName = lastDrinkName
        self.lastUpdated = lastUpdated
        self.sessionId = sessionId
        self.sessionStartTime = sessionStartTime
        self.elapsedSeconds = elapsedSeconds
        self.elapsed = elapsed
    }

    /// The scores view of `scores`, or of the placeholder when the app never sent any.
    public init(scores: JitterScores?) {
        if let scores {
            self.init(
                view: .scores, isPlaceholder: false, focusScore: scores.focusScore, crashRiskScore: scores.crashRiskScore,
                currentCaffeineLevel: scores.currentCaffeineLevel, riskLevel: scores.riskLevel,
                riskColor: scores.riskLevel.color, lastDrinkTime: scores.lastDrinkTime, lastDrinkName: scores.lastDrinkName,
                lastUpdated: scores.lastUpdated)
        } else {
            let placeholder = Self.placeholderScores
            self.init(
                view: .scores, isPlaceholder: true, focusScore: placeholder.focusScore,
                crashRiskScore: placeholder.crashRiskScore, currentCaffeineLevel: placeholder.currentCaffeineLevel,
                riskLevel: CrashRiskLevel(score: placeholder.crashRiskScore), riskColor: .gray)
        }
    }

    /// The timer view of `session` at `date`, over the scores.
    public init(scores: JitterScores?, session: DrinkSession, at date: Date) {
        self.init(scores: scores)
        let seconds = session.elapsedSeconds(at: date)
        view = .sipping
        sessionId = session.id
        sessionStartTime = session.startTime
        elapsedSeconds = seconds
        elapsed = DrinkSession.formatElapsed(seconds)
    }
}
