import Foundation

/// A long-term goal every daily focus is linked to.
public struct TenXGoal: Codable, Equatable, Sendable, Identifiable {
    public let id: String
    public var title: String
    public let createdAt: Date
    /// Set while the goal is archived; archived goals stay so focuses keep their link and the
    /// user can unarchive them.
    public var archivedAt: Date?

    public init(id: String, title: String, createdAt: Date, archivedAt: Date? = nil) {
        self.id = id
        self.title = title
        self.createdAt = createdAt
        self.archivedAt = archivedAt
    }

    public var isArchived: Bool { archivedAt != nil }
}
