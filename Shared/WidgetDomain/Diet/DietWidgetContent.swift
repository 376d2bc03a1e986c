/// One Diet timeline entry's content: the slice of ``DietState`` its kind renders.
///
/// Encoded flat as `{"kind": "<kind string>", <the kind's content fields>}`, which is also the
/// shape of a timeline entry once `date` is added beside it.
public enum DietWidgetContent: Sendable, Equatable {
    case progress(DietProgressContent)
    case quickLog(QuickLogContent)
    case lockScreen(DietLockScreenContent)

    public var kind: DietWidgetKind {
        switch self {
        case .progress: .dietProgress
        case .quickLog: .quickLog
        case .lockScreen: .lockScreen
        }
    }

    /// What `kind` shows of `state` on local `day`.
    public init(state: DietState, kind: DietWidgetKind, day: DayKey) {
        switch kind {
        case .dietProgress: self = .progress(DietProgressContent(state: state, day: day))
        case .quickLog: self = .quickLog(QuickLogContent(state: state, day: day))
        case .lockScreen: self = .lockScreen(DietLockScreenContent(state: state, day: day))
        }
    }
}

extension DietWidgetContent: Codable {
    private enum CodingKeys: String, CodingKey { case kind }

    public init(from decoder: any Decoder) throws {
        switch try decoder.container(keyedBy: CodingKeys.self).decode(DietWidgetKind.self, forKey: .kind) {
        case .dietProgress: self = .progress(try DietProgressContent(from: decoder))
        case .quickLog: self = .quickLog(try QuickLogContent(from: decoder))
        case .lockScreen: self = .lockScreen(try DietLockScreenContent(from: decoder))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .progress(let content): try content.encode(to: encoder)
        case .quickLog(let content): try content.encode(to: encoder)
        case .lockScreen(let content): try content.encode(to: encoder)
        }
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .kind)
    }
}
