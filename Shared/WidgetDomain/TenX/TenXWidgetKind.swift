/// TenX's widgets, with the kind strings this backend defines for them.
public enum TenXWidgetKind: String, CaseIterable, Codable, Sendable {
    /// `HomeWidgetView`: today's focuses, progress and streak.
    case home = "TenXHomeWidget"
    /// `LockWidgetView`: progress ring and streak on the lock screen.
    case lock = "TenXLockWidget"

    /// The WidgetKit families the kind supports.
    public var supportedFamilies: [String] {
        switch self {
        case .home: ["systemMedium", "systemLarge"]
        case .lock: ["accessoryCircular"]
        }
    }
}
