import WidgetDomain

/// Topic frames of the bus's publishers. Subscriptions match by prefix, so the most general part
/// comes first. A topic is always followed by exactly one envelope frame.
public enum Topic {
    /// Prefix of every state event.
    public static let statePrefix = "state."
    /// Prefix of every timeline event.
    public static let timelinePrefix = "timeline."
    /// Heartbeats of any publisher.
    public static let heartbeat = "heartbeat"

    /// `state.<app>.<user>`
    public static func state(app: WidgetApp, user: String) -> String {
        "\(statePrefix)\(app.rawValue).\(user)"
    }

    /// Prefix of every profile event.
    public static let profilePrefix = "\(statePrefix)profile."

    /// `state.profile.<user>`: a user's settings, on the state publisher.
    public static func profile(user: String) -> String {
        "\(profilePrefix)\(user)"
    }

    /// Prefix of every push-token event.
    public static let pushTokensPrefix = "\(statePrefix)push."

    /// `state.push.<user>`: a user's widget push tokens, on the state publisher.
    public static func pushTokens(user: String) -> String {
        "\(pushTokensPrefix)\(user)"
    }

    /// `state.foreground.<user>`: the user's app came to the foreground.
    public static func appForegrounded(user: String) -> String {
        "\(statePrefix)foreground.\(user)"
    }

    /// `sync.<user>`: a sync pass finished, on sync-agent's publisher.
    public static func syncCompleted(user: String) -> String {
        "sync.\(user)"
    }

    /// Prefix of every metrics event.
    public static let metricsPrefix = "metrics."

    /// `metrics.<user>`: a user's metrics aggregate changed, on metrics-ingest's publisher.
    public static func metrics(user: String) -> String {
        "\(metricsPrefix)\(user)"
    }

    /// `timeline.<WidgetKind>.<user>`
    public static func timeline(kind: WidgetKind, user: String) -> String {
        "\(timelinePrefix)\(kind.rawValue).\(user)"
    }
}
