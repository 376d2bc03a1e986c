/// A widget rule refused a message. The state it was applied to is unchanged.
///
/// `code` is stable and documented in docs/PROTOCOL.md; clients branch on it, people read `message`.
public struct RuleViolation: Error, Equatable, Sendable, CustomStringConvertible {
    public let code: String
    public let message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}
