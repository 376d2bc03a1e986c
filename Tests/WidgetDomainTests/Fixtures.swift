import Foundation
import Testing
@testable import WidgetDomain

/// Fixed inputs shared by the domain tests: one clock reading, one zone, seeded randomness.
enum Fixture {
    /// 2026-11-22T09:30:00Z — a whole second, so it survives every date encoding exactly.
    static let now = Date(timeIntervalSince1970: 1_795_339_800)
    static let timeZone = TimeZone(identifier: "Europe/Berlin")!

    static func context(now: Date = Fixture.now, seed: UInt64 = 42) -> ReduceContext {
        ReduceContext(now: now, timeZone: timeZone, random: RandomSource(SeededRandom(seed: seed)))
    }

    static let breathing = InterventionSuggestion.named("diaphragm_breathing")!

    static let highCheckIn = StressCheckIn(
        id: "abc-123",
        tensionLevel: 7,
        suggestedInterventionId: "diaphragm_breathing",
        createdAt: now
    )

    static let suggestionPhase = TensionCheckPhase.suggestion(intervention: breathing, checkIn: highCheckIn)

    static let completedPhase = TensionCheckPhase.completed(
        interventionName: "Diaphragm Breathing",
        checkInId: "abc-123",
        resetAt: now.addingTimeInterval(5)
    )

    static let allPhases: [TensionCheckPhase] = [.picker, suggestionPhase, completedPhase]

    static let pickerState = TensionCheckState.initial
    static let suggestionState = TensionCheckState(phase: suggestionPhase, lastSuggestionId: "diaphragm_breathing")
    static let completedState = TensionCheckState(phase: completedPhase, lastSuggestionId: "diaphragm_breathing")
}

/// Runs `body` and returns the rule violation it threw, recording an issue if it threw none.
func ruleViolation(
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> Void
) -> RuleViolation? {
    do {
        try body()
        Issue.record("expected a RuleViolation, none was thrown", sourceLocation: sourceLocation)
        return nil
    } catch let violation as RuleViolation {
        return violation
    } catch {
        Issue.record("expected a RuleViolation, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// The suggestion inside a phase, or nil for picker/completed.
extension TensionCheckPhase {
    var openSuggestion: (intervention: InterventionSuggestion, checkIn: StressCheckIn)? {
        if case .suggestion(let intervention, let checkIn) = self { return (intervention, checkIn) }
        return nil
    }
}

/// A JSON value parsed into Foundation objects, for asserting on the wire shape.
func jsonObject(_ data: Data) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
}

/// An encoder with a fixed, readable output (sorted keys, whole-second ISO-8601 dates).
func sortedISOEncoder() -> JSONEncoder {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    encoder.dateEncodingStrategy = .iso8601
    return encoder
}

func isoDecoder() -> JSONDecoder {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    return decoder
}
