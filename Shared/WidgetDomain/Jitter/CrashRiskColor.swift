/// The crash-risk score's colour on the widget, by the bands of ``CrashRiskLevel``.
public enum CrashRiskColor: String, Codable, CaseIterable, Sendable {
    case green, orange, red
    /// No scores from the app yet.
    case gray
}
