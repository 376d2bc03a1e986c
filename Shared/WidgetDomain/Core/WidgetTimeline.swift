/// A timeline of any widget kind, encoded as the kind's own timeline.
public enum WidgetTimeline: Sendable, Equatable, Encodable {
    case tensionCheck(Timeline<TensionCheckPhase>)
    case diet(Timeline<DietWidgetContent>)
    case tenX(Timeline<TenXWidgetSnapshot>)
    case stressMonitor(Timeline<StressMonitorEntry>)
    case jitter(Timeline<JitterWidgetContent>)

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
