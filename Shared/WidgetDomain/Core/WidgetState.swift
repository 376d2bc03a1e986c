import Foundation

/// One user's state of one app: the sum of the five apps' states. Encoded as the app's own
/// state; decoded knowing the app (``init(app:from:forKey:)``).
public enum WidgetState: Sendable, Equatable, Encodable {
    case tensionCheck(TensionCheckState)
    case diet(DietState)
    case tenX(TenXState)
    case stressMonitor(StressMonitorState)
    case jitter(JitterState)

    public var app: WidgetApp {
        switch self {
        case .tensionCheck: .tensionCheck
        case .diet: .diet
        case .tenX: .tenX
        case .stressMonitor: .stressMonitor
        case .jitter: .jitter
        }
    }

    /// The state a user has before their first message.
    public static func initial(for app: WidgetApp) -> WidgetState {
        switch app {
        case .tensionCheck: .tensionCheck(.initial)
        case .diet: .diet(.initial)
        case .tenX: .tenX(.initial)
        case .stressMonitor: .stressMonitor(.initial)
        case .jitter: .jitter(.initial)
        }
    }

    /// Decodes the state of `app` from `key`: the one place that maps an app to its state type.
    public init<Key: CodingKey>(app: WidgetApp, from container: KeyedDecodingContainer<Key>, forKey key: Key)
        throws
    {
        switch app {
        case .tensionCheck: self = .tensionCheck(try container.decode(TensionCheckState.self, forKey: key))
        case .diet: self = .diet(try container.decode(DietState.self, forKey: key))
        case .tenX: self = .tenX(try container.decode(TenXState.self, forKey: key))
        case .stressMonitor: self = .stressMonitor(try container.decode(StressMonitorState.self, forKey: key))
        case .jitter: self = .jitter(try container.decode(JitterState.self, forKey: key))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .tensionCheck(let state): try state.encode(to: encoder)
        case .diet(let state): try state.encode(to: encoder)
        case .tenX(let state): try state.encode(to: encoder)
        case .stressMonitor(let state): try state.encode(to: encoder)
        case .jitter(let state): try state.encode(to: encoder)
        }
    }

    /// The timeline `kind` shows for this state at `now`, in the user's `timeZone`; Stress
    /// Monitor also shows the user's `metrics` from metrics-ingest (``StressMonitorState/merged(with:)``).
    /// Every reader builds timelines here, so timeline-service and snapshot-writer agree.
    ///
    /// - Precondition: `kind.app == app`.
    public func timeline(for kind: WidgetKind, now: Date, timeZone: TimeZone, metrics: MetricsAggregate? = nil) -> WidgetTimeline {
        precondition(kind.app == app, "\(kind.rawValue) does not render \(app.rawValue) state")
        let calendar = LocalCalendar(timeZone: timeZone)
        switch self {
        case .tensionCheck(let state):
            return .tensionCheck(TensionCheckTimelinePolicy.timeline(for: state, now: now))
        case .diet(let state):
            let dietKind = DietWidgetKind(rawValue: kind.rawValue)!
            return .diet(DietTimelinePolicy.timeline(for: state, kind: dietKind, now: now, calendar: calendar))
        case .tenX(let state):
            let tenXKind: TenXWidgetKind = kind == .tenXLock ? .lock : .home
            return .tenX(TenXTimelinePolicy.timeline(for: state, kind: tenXKind, now: now, calendar: calendar))
        case .stressMonitor(let state):
            return .stressMonitor(StressMonitorTimelinePolicy.timeline(for: state.merged(with: metrics), now: now))
        case .jitter(let state):
            return .jitter(JitterTimelinePolicy.timeline(for: state, now: now))
        }
    }
}
