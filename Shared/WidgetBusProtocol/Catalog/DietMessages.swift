import WidgetDomain

public struct QuickLogFoodBody: Codable, Sendable, Equatable {
    public var foodId: String
    public init(foodId: String) { self.foodId = foodId }
}

public struct ConfigureDietWidgetBody: Codable, Sendable, Equatable {
    public var kind: String
    public var showMacros: Bool?
    public var compactMode: Bool?
    public init(kind: String, showMacros: Bool? = nil, compactMode: Bool? = nil) {
        self.kind = kind
        self.showMacros = showMacros
        self.compactMode = compactMode
    }
}

public struct UpdateRecentFoodsBody: Codable, Sendable, Equatable {
    public var foods: [QuickLogFood]
    public init(foods: [QuickLogFood]) { self.foods = foods }
}

public struct SetTrackingModeBody: Codable, Sendable, Equatable {
    public var mode: String
    public init(mode: String) { self.mode = mode }
}

extension DietIntent {
    /// `QuickLogFoodIntent`, `ConfigureDietWidgetIntent`, `UpdateNutrition`, `UpdateGoals`,
    /// `UpdateRecentFoods`, `SetTrackingMode`.
    init?(type: MessageType, body: any Decoder) throws {
        switch type {
        case .quickLogFood:
            self = .quickLogFood(foodId: try QuickLogFoodBody(from: body).foodId)
        case .configureDietWidget:
            let configuration = try ConfigureDietWidgetBody(from: body)
            self = .configureWidget(
                kind: configuration.kind, showMacros: configuration.showMacros, compactMode: configuration.compactMode)
        case .updateNutrition:
            self = .updateNutrition(try NutritionTotals(from: body))
        case .updateGoals:
            self = .updateGoals(try NutritionGoalsUpdate(from: body))
        case .updateRecentFoods:
            self = .updateRecentFoods(foods: try UpdateRecentFoodsBody(from: body).foods)
        case .setTrackingMode:
            self = .setTrackingMode(mode: try SetTrackingModeBody(from: body).mode)
        default:
            return nil
        }
    }
}
