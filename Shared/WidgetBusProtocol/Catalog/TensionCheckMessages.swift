import WidgetDomain

public struct RecordTensionBody: Codable, Sendable, Equatable {
    public var level: Int
    public init(level: Int) { self.level = level }
}

public struct MarkInterventionDoneBody: Codable, Sendable, Equatable {
    public var checkInId: String
    public init(checkInId: String) { self.checkInId = checkInId }
}

extension TensionCheckIntent {
    /// `RecordTensionIntent`, `MarkInterventionDoneIntent`, `ResetWidgetIntent`.
    init?(type: MessageType, body: any Decoder) throws {
        switch type {
        case .recordTension: self = .recordTension(level: try RecordTensionBody(from: body).level)
        case .markInterventionDone: self = .markInterventionDone(checkInId: try MarkInterventionDoneBody(from: body).checkInId)
        case .resetWidget: self = .resetWidget
        default: return nil
        }
    }
}
