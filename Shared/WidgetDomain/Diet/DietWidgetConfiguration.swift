/// A Diet widget's user-configurable options (show macros, compact mode), stored per widget kind.
public struct DietWidgetConfiguration: Codable, Equatable, Sendable {
    public var showMacros: Bool
    public var compactMode: Bool

    public init(showMacros: Bool = true, compactMode: Bool = false) {
        self.showMacros = showMacros
        self.compactMode = compactMode
    }

    /// The defaults: a kind never configured shows macros, not compact.
    public static let `default` = DietWidgetConfiguration()
}
