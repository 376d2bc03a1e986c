/// The crash-risk score's colour on the widget (the seed's `riskColor`).
public enum CrashRiskColor: String, Codable, CaseIterable, Sendable {
    case green, orange, red
    /// No scores from the app yet.
    case gray
}
