/// The five seed apps. Each owns one state per user, which all of its widget kinds render.
public enum WidgetApp: String, CaseIterable, Codable, Sendable {
    case tensionCheck
}

/// WidgetKit kind strings, exactly as the seeds name them.
public enum WidgetKind: String, CaseIterable, Codable, Sendable {
    case tensionCheck = "TensionCheckWidget"

    /// The app whose state this kind renders.
    public var app: WidgetApp {
        switch self {
        case .tensionCheck: .tensionCheck
        }
    }
}
