import Foundation

/// One tension check-in, kept pending until the sync agent has pushed it.
public struct StressCheckIn: Codable, Equatable, Sendable, Identifiable {
    public let id: String
    public let tensionLevel: Int
    /// The intervention suggested for a high level; nil for a low one.
    public let suggestedInterventionId: String?
    public var interventionCompleted: Bool
    public let createdAt: Date

    public init(
        id: String,
        tensionLevel: Int,
        suggestedInterventionId: String?,
        interventionCompleted: Bool = false,
        createdAt: Date
    ) {
        self.id = id
        self.tensionLevel = tensionLevel
        self.suggestedInterventionId = suggestedInterventionId
        self.interventionCompleted = interventionCompleted
        self.createdAt = createdAt
    }
}
