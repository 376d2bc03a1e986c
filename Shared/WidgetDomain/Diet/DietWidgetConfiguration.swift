/// The seed's `ConfigurationAppIntent` parameters, stored per widget kind.
public struct DietWidgetConfiguration: Codable, Equatable, Sendable {
    public var showMacros: Bool
    public var compactMode: Bool

    public init(showMacros: Bool = true, compactMode: Bool = false) {
        self.showMacros = showMacros
        self.compactMode = compactMode
    }

    /// The seed's `@Parameter` defaults: a kind never configured shows macros, not compact.
    public static let `default` = DietWidgetConfiguration()
}
