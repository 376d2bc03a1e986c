import WidgetDomain

public struct CompleteDrinkBody: Codable, Sendable, Equatable {
    public var sessionId: String
    public init(sessionId: String) { self.sessionId = sessionId }
}

extension JitterIntent {
    /// `StartDrinkIntent`, `CompleteDrinkIntent`, `UpdateJitterScores` (body: ``JitterScoresUpdate``).
    init?(type: MessageType, body: any Decoder) throws {
        switch type {
        case .startDrink: self = .startDrink
        case .completeDrink: self = .completeDrink(sessionId: try CompleteDrinkBody(from: body).sessionId)
        case .updateJitterScores: self = .updateScores(try JitterScoresUpdate(from: body))
        default: return nil
        }
    }
}
