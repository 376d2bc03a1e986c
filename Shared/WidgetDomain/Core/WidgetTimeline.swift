import Foundation

/// A timeline of any widget kind, encoded as the kind's own timeline.
public enum WidgetTimeline: Sendable, Equatable, Encodable {
    case tensionCheck(Timeline<TensionCheckPhase>)
    case diet(Timeline<DietWidgetContent>)
    case tenX(Timeline<TenXWidgetSnapshot>)
    case stressMonitor(Timeline<StressMonitorEntry>)
    case jitter(Timeline<JitterWidgetContent>)

    /// The kind's ``Timeline/reloadDate``.
    public var reloadDate: Date? {
        switch self {
        case .tensionCheck(let timeline): timeline.reloadDate
        case .diet(let timeline): timeline.reloadDate
        case .tenX(let timeline): timeline.reloadDate
        case .stressMonitor(let timeline): timeline.reloadDate
        case .jitter(let timeline): timeline.reloadDate
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .tensionCheck(let timeline): try timeline.encode(to: encoder)
        case .diet(let timeline): try timeline.encode(to: encoder)
        case .tenX(let timeline): try timeline.encode(to: encoder)
        case .stressMonitor(let timeline): try timeline.encode(to: encoder)
        case .jitter(let timeline): try timeline.encode(to: encoder)
        }
    }
}
