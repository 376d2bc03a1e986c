import Foundation

/// What the Tension Check widget shows: picker → suggestion → completed → picker.
///
/// Encoded as `{"phase": "picker" | "suggestion" | "completed", …}` with the phase's fields
/// beside it, which is also the shape of a timeline entry.
public enum TensionCheckPhase: Sendable, Equatable {
    case picker
    /// A high level was recorded; the widget offers `intervention` for `checkIn`.
    case suggestion(intervention: InterventionSuggestion, checkIn: StressCheckIn)
    /// The intervention was done; the widget says so until `resetAt`, then shows the picker.
    case completed(interventionName: String, checkInId: String, resetAt: Date)

    public var name: String {
        switch self {
        case .picker: "picker"
        case .suggestion: "suggestion"
        case .completed: "completed"
        }
    }
}

extension TensionCheckPhase: Codable {
    private enum CodingKeys: String, CodingKey {
        case phase, interventionId, interventionName, actionLabel, checkIn, checkInId, resetAt
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try container.decode(String.self, forKey: .phase) {
        case "picker":
            self = .picker
        case "suggestion":
            self = .suggestion(
                intervention: InterventionSuggestion(
                    interventionId: try container.decode(String.self, forKey: .interventionId),
                    name: try container.decode(String.self, forKey: .interventionName),
                    actionLabel: try container.decode(String.self, forKey: .actionLabel)
                ),
                checkIn: try container.decode(StressCheckIn.self, forKey: .checkIn)
            )
        case "completed":
            self = .completed(
                interventionName: try container.decode(String.self, forKey: .interventionName),
                checkInId: try container.decode(String.self, forKey: .checkInId),
                resetAt: try container.decode(Date.self, forKey: .resetAt)
            )
        case let other:
            throw DecodingError.dataCorruptedError(
                forKey: .phase, in: container, debugDescription: "unknown phase \(other)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .phase)
        switch self {
        case .picker:
            break
        case .suggestion(let intervention, let checkIn):
            try container.encode(intervention.interventionId, forKey: .interventionId)
            try container.encode(intervention.name, forKey: .interventionName)
            try container.encode(intervention.actionLabel, forKey: .actionLabel)
            try container.encode(checkIn, forKey: .checkIn)
            try container.encode(checkIn.id, forKey: .checkInId)
        case .completed(let interventionName, let checkInId, let resetAt):
            try container.encode(interventionName, forKey: .interventionName)
            try container.encode(checkInId, forKey: .checkInId)
            try container.encode(resetAt, forKey: .resetAt)
        }
    }
}
