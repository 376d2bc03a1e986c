import Foundation

/// One quick-logged food, pending sync: what was eaten, how much, on which local day.
public struct FoodLogEntry: Codable, Equatable, Sendable, Identifiable {
    public let id: String
    public let foodId: String
    public let name: String
    public let quantity: Double
    public let unit: String
    public let calories: Double
    public let protein: Double
    public let carbs: Double
    public let fat: Double
    public let dayKey: DayKey
    public let loggedAt: Date

    public init(
        id: String, foodId: String, name: String, quantity: Double, unit: String, calories: Double,
        protein: Double, carbs: Double, fat: Double, dayKey: DayKey, loggedAt: Date
    ) {
        self.id = id
        self.foodId = foodId
        self.name = name
        self.quantity = quantity
        self.unit = unit
        self.calories = calories
        self.protein = protein
        self.carbs = carbs
        self.fat = fat
        self.dayKey = dayKey
        self.loggedAt = loggedAt
    }
}
