/// The five apps whose widgets this backend serves. Each owns one state per user, which all of
/// its widget kinds render.
public enum WidgetApp: String, CaseIterable, Codable, Sendable {
    case tensionCheck
    case diet
    case tenX
    case stressMonitor
    case jitter
}

/// WidgetKit kinds: a widget extension registers each under exactly its raw value, and timelines,
/// topics and snapshot files are named by it.
public enum WidgetKind: String, CaseIterable, Codable, Sendable {
    case tensionCheck = "TensionCheckWidget"
    case dietProgress = "DietProgressWidget"
    case quickLog = "QuickLogWidget"
    case lockScreen = "LockScreenWidget"
    case tenXHome = "TenXHomeWidget"
    case tenXLock = "TenXLockWidget"
    case stressMonitor = "StressMonitorWidget"
    case jitter = "JitterWidget"

    /// The app whose state this kind renders.
    public var app: WidgetApp {
        switch self {
        case .tensionCheck: .tensionCheck
        case .dietProgress, .quickLog, .lockScreen: .diet
        case .tenXHome, .tenXLock: .tenX
        case .stressMonitor: .stressMonitor
        case .jitter: .jitter
        }
    }
}
