/// A micro-intervention the widget can offer when tension is high. The pool is embedded because
/// a widget tap must not depend on the network.
public struct InterventionSuggestion: Codable, Equatable, Sendable {
    public let interventionId: String
    public let name: String
    public let actionLabel: String

    public static let pool: [InterventionSuggestion] = [
        InterventionSuggestion(
            interventionId: "diaphragm_breathing",
            name: "Diaphragm Breathing",
            actionLabel: "Try 10 slow breaths (4s in, 6s out)"
        ),
        InterventionSuggestion(
            interventionId: "jaw_relaxation",
            name: "Jaw Release",
            actionLabel: "Let your jaw hang loose for 30 seconds"
        ),
        InterventionSuggestion(
            interventionId: "mindfulness_minutes",
            name: "Body Scan",
            actionLabel: "Do a 2-minute body scan"
        ),
    ]

    /// Picks at random, never repeating the suggestion shown last.
    public static func pick(excluding lastId: String?, using random: inout some RandomNumberGenerator)
        -> InterventionSuggestion
    {
        let others = pool.filter { $0.interventionId != lastId }
        return (others.isEmpty ? pool : others).randomElement(using: &random)!
    }

    public static func named(_ interventionId: String) -> InterventionSuggestion? {
        pool.first { $0.interventionId == interventionId }
    }
}
