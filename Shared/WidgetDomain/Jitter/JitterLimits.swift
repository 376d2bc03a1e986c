import Foundation

/// Bounds on what a Jitter client controls; anything outside is refused before it reaches the state.
public enum JitterLimits {
    /// Focus and crash-risk scores are whole numbers 0–100 (the colour bands assume it).
    public static let scoreRange = 0...100
    /// Caffeine in the body, mg. 2000 mg is far beyond a dangerous dose: anything higher is a bug.
    public static let caffeineRange = 0...2000
    /// How far in the future `lastDrinkTime` may lie, to absorb clock skew between phone and server.
    public static let drinkTimeTolerance: TimeInterval = 5 * 60
    /// The earliest plausible `lastDrinkTime` (2000-01-01T00:00:00Z): catches zero / garbage dates.
    public static let earliestDrinkTime = Date(timeIntervalSince1970: 946_684_800)
    /// Longest drink name, in characters (after trimming).
    public static let maxDrinkNameLength = 80

    /// Checks an `UpdateJitterScores` body and returns it with the drink name trimmed.
    static func validated(_ update: JitterScoresUpdate, now: Date) throws(RuleViolation) -> JitterScoresUpdate {
        for (name, value) in [("crashRiskScore", update.crashRiskScore), ("focusScore", update.focusScore)] {
            guard scoreRange.contains(value) else { throw .invalidJitterScore(field: name, value: value) }
        }
        guard caffeineRange.contains(update.currentCaffeineLevel) else {
            throw .invalidCaffeineLevel(update.currentCaffeineLevel)
        }
        if let time = update.lastDrinkTime {
            guard time >= earliestDrinkTime, time <= now.addingTimeInterval(drinkTimeTolerance) else {
                throw .invalidDrinkTime(time)
            }
        }
        var update = update
        if let name = update.lastDrinkName {
            let trimmed = trimmed(name)
            guard (1...maxDrinkNameLength).contains(trimmed.count),
                !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
            else { throw .invalidDrinkName(excerpt(name)) }
            update.lastDrinkName = trimmed
        }
        return update
    }

    static func trimmed(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(String.UnicodeScalarView(scalars[first...last]))
    }

    /// A client string as an error message may quote it: short, on one line.
    static func excerpt(_ text: String) -> String {
        let flat = String(text.unicodeScalars.map { $0.properties.generalCategory == .control ? "?" : Character($0) })
        return flat.count > 40 ? String(flat.prefix(40)) + "…" : flat
    }
}
