import Foundation

/// Durable state of one user's Tension Check widget: the phase and the last suggestion offered.
/// Check-ins awaiting sync live with the other pending records, not here.
public struct TensionCheckState: Codable, Equatable, Sendable {
    public var phase: TensionCheckPhase
    /// The intervention offered last, so the next suggestion differs from it.
    public var lastSuggestionId: String?

    public init(phase: TensionCheckPhase = .picker, lastSuggestionId: String? = nil) {
        self.phase = phase
        self.lastSuggestionId = lastSuggestionId
    }

    public static let initial = TensionCheckState()

    /// The phase as the widget shows it at `date`: a completed view auto-resets to the picker.
    ///
    /// A derived reader may not write, so the reset is computed from `resetAt` rather than
    /// stored.
    public func phase(at date: Date) -> TensionCheckPhase {
        if case .completed(_, _, let resetAt) = phase, date >= resetAt {
            return .picker
        }
        return phase
    }
}
