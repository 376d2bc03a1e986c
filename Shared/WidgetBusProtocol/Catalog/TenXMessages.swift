import WidgetDomain

public struct CreateGoalBody: Codable, Sendable, Equatable {
    public var title: String
    public init(title: String) { self.title = title }
}

/// The body of `ArchiveGoal` and `UnarchiveGoal`.
public struct GoalReferenceBody: Codable, Sendable, Equatable {
    public var goalId: String
    public init(goalId: String) { self.goalId = goalId }
}

public struct CreateDayEntryBody: Codable, Sendable, Equatable {
    public var focuses: [TenXFocusDraft]
    public init(focuses: [TenXFocusDraft]) { self.focuses = focuses }
}

public struct ToggleFocusBody: Codable, Sendable, Equatable {
    public var focusId: String
    public init(focusId: String) { self.focusId = focusId }
}

extension TenXIntent {
    /// `CreateGoal`, `ArchiveGoal`, `UnarchiveGoal`, `CompleteOnboarding`, `CreateDayEntry`,
    /// `ToggleFocus`.
    init?(type: MessageType, body: any Decoder) throws {
        switch type {
        case .createGoal: self = .createGoal(title: try CreateGoalBody(from: body).title)
        case .archiveGoal: self = .archiveGoal(goalId: try GoalReferenceBody(from: body).goalId)
        case .unarchiveGoal: self = .unarchiveGoal(goalId: try GoalReferenceBody(from: body).goalId)
        case .completeOnboarding: self = .completeOnboarding
        case .createDayEntry: self = .createDayEntry(focuses: try CreateDayEntryBody(from: body).focuses)
        case .toggleFocus: self = .toggleFocus(focusId: try ToggleFocusBody(from: body).focusId)
        default: return nil
        }
    }
}
