import Foundation

/// How often one device may be pushed. WidgetKit counts every push-triggered reload against the
/// widget's daily reload budget (a few dozen a day, shared with the reloads its own timeline
/// policy asks for); a server that spends it wakes the widget at midday and leaves it stale at
/// night. docs/PUSH.md gives the reasoning behind the defaults.
public struct PushBudget: Sendable, Equatable {
    /// How long a first change waits for others to join its push: a burst of changes (an app
    /// syncing several records) costs one push.
    public var coalescingDelay: TimeInterval
    /// The shortest time between two pushes to one token; changes within it join the push at its end.
    public var minimumInterval: TimeInterval
    /// The most pushes to one token in any 24 hours; at least 1.
    public var dailyLimit: Int

    /// - Precondition: `dailyLimit >= 1` (a gateway that may not push at all is not configured).
    public init(coalescingDelay: TimeInterval = 10, minimumInterval: TimeInterval = 300, dailyLimit: Int = 24) {
        precondition(dailyLimit >= 1, "a daily limit of \(dailyLimit) pushes allows none")
        self.coalescingDelay = coalescingDelay
        self.minimumInterval = minimumInterval
        self.dailyLimit = dailyLimit
    }

    /// The window ``dailyLimit`` counts in.
    public static let day: TimeInterval = 24 * 60 * 60
}
