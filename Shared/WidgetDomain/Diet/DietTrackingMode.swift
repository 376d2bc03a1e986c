/// How the app tracks eating. `mindful` is recovery mode: the widgets show no calorie or macro
/// numbers, only the progress ring and a leaf.
public enum DietTrackingMode: String, CaseIterable, Codable, Sendable {
    case full
    case mindful

    public var isRecoveryMode: Bool { self == .mindful }
}
