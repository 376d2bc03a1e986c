/// A timeline of any widget kind, encoded as the kind's own timeline.
public enum WidgetTimeline: Sendable, Equatable, Encodable {
    case tensionCheck(Timeline<TensionCheckPhase>)

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .tensionCheck(let timeline): try timeline.encode(to: encoder)
        }
    }
}
