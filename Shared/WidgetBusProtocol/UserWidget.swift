import WidgetDomain

/// One widget kind of one user: what a timeline is published for (`timeline.<kind>.<user>`) and a
/// snapshot file kept for (`<user>/<kind>.json`), so every service that follows timelines keys
/// what it holds by it.
public struct UserWidget: Hashable, Sendable {
    public let user: String
    public let kind: WidgetKind

    public init(user: String, kind: WidgetKind) {
        self.user = user
        self.kind = kind
    }
}
