/// TenX's widgets. The seed names views and families but no kind strings, so these are ours.
public enum TenXWidgetKind: String, CaseIterable, Codable, Sendable {
    /// `HomeWidgetView`: today's focuses, progress and streak.
    case home = "TenXHomeWidget"
    /// `LockWidgetView`: progress ring and streak on the lock screen.
    case lock = "TenXLockWidget"

    /// WidgetKit families, as the seed's MVP ships them.
    public var supportedFamilies: [String] {
        switch self {
        case .home: ["systemMedium", "systemLarge"]
        case .lock: ["accessoryCircular"]
        }
    }
}
