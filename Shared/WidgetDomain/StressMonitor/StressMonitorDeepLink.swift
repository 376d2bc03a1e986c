/// Where every tap on the Stress Monitor widget goes: the app's measurement flow.
public enum StressMonitorDeepLink {
    public static let measurement = "stressmonitor://measurement"
}
