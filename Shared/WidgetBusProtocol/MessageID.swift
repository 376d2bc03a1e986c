import WidgetDomain

/// The id of a message this process sends: a random (version 4) UUID in lowercase, as
/// docs/PROTOCOL.md specifies for envelope ids, drawn from the system's generator (`getrandom`).
public enum MessageID {
    public static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        return RandomUUID.string(using: &generator)
    }
}
