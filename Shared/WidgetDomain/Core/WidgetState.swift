import Foundation

/// One user's state of one app: the sum of the five apps' states.
public enum WidgetState: Sendable, Equatable {
    case tensionCheck(TensionCheckState)

    public var app: WidgetApp {
        switch self {
        case .tensionCheck: .tensionCheck
        }
    }

    /// The state a user has before their first message.
    public static func initial(for app: WidgetApp) -> WidgetState {
        switch app {
        case .tensionCheck: .tensionCheck(.initial)
        }
    }

    /// Decodes the state of `app` from `key`: the one place that maps an app to its state type.
    public init<Key: CodingKey>(app: WidgetApp, from container: KeyedDecodingContainer<Key>, forKey key: Key)
        throws
    {
        switch app {
        case .tensionCheck: self = .tensionCheck(try container.decode(TensionCheckState.self, forKey: key))
        }
    }

    public func encode<Key: CodingKey>(to container: inout KeyedEncodingContainer<Key>, forKey key: Key) throws {
        switch self {
        case .tensionCheck(let state): try container.encode(state, forKey: key)
        }
    }

    /// The timeline `kind` shows for this state at `now`, in the user's `timeZone`.
    public func timeline(for kind: WidgetKind, now: Date, timeZone: TimeZone) -> WidgetTimeline {
        switch (self, kind) {
        case (.tensionCheck(let state), .tensionCheck):
            .tensionCheck(TensionCheckTimelinePolicy.timeline(for: state, now: now))
        }
    }
}
