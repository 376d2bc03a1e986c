/// The app's `tenx://` routes, one per URL host.
public enum TenXDeepLink: String, Codable, Sendable, CaseIterable {
    case home = "tenx://home"
    case setup = "tenx://setup"
    case goals = "tenx://goals"
    /// Exists in the app; no widget state links to it.
    case settings = "tenx://settings"
}
