/// One food button of the Quick Log widget: what the button shows and the `foodId` its
/// `QuickLogFoodIntent` sends.
public struct QuickLogButton: Codable, Equatable, Sendable, Identifiable {
    public var id: String
    public var name: String
    /// Per-unit calories, as the button shows them; nil in mindful mode (no numbers).
    public var calories: Double?
    public var defaultQuantity: Double
    public var unit: String

    public init(id: String, name: String, calories: Double?, defaultQuantity: Double, unit: String) {
        self.id = id
        self.name = name
        self.calories = calories
        self.defaultQuantity = defaultQuantity
        self.unit = unit
    }

    public init(food: QuickLogFood, showsNumbers: Bool) {
        self.init(
            id: food.id, name: food.name, calories: showsNumbers ? food.calories : nil,
            defaultQuantity: food.defaultQuantity, unit: food.unit)
    }
}
