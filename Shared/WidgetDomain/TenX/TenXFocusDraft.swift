/// One focus as the daily setup submits it, and as carry-over pre-fills it. Values arrive
/// unvalidated; ``TenXStateMachine`` checks them.
public struct TenXFocusDraft: Codable, Equatable, Sendable {
    public var title: String
    /// The goal to link; nil or empty means the user has not picked one yet.
    public var goalId: String?
    /// `yyyy-MM-dd` of the day this focus continues, if it was carried over.
    public var carriedFromDayKey: String?

    public init(title: String, goalId: String?, carriedFromDayKey: String? = nil) {
        self.title = title
        self.goalId = goalId
        self.carriedFromDayKey = carriedFromDayKey
    }
}
