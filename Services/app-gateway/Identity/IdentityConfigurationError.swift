/// A configuration app-gateway cannot start with, in one line that names what is wrong.
public struct IdentityConfigurationError: Error, Equatable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) { self.description = description }
}
