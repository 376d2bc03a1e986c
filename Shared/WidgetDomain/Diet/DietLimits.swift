/// Bounds on everything a Diet client controls. Anything outside is refused with a
/// ``RuleViolation`` before it can reach the state: JSON cannot carry NaN or ∞, but an in-process
/// caller can, and a huge number would make every widget nonsense until the next sync.
public enum DietLimits {
    /// Largest daily total the widget accepts, kcal (a day's `UpdateNutrition`, and a quick log's sum).
    public static let maxDailyCalories = 50_000.0
    /// Largest daily total of one macro, g.
    public static let maxDailyMacroGrams = 5_000.0
    /// Largest calorie target, kcal/day.
    public static let maxCalorieTarget = 20_000
    /// Largest target of one macro, g/day.
    public static let maxMacroTargetGrams = 2_000.0
    /// Largest per-unit energy of a food, kcal.
    public static let maxFoodCalories = 10_000.0
    /// Largest per-unit amount of one macro in a food, g.
    public static let maxFoodMacroGrams = 1_000.0
    /// Largest `defaultQuantity` (units such as `g` or `ml` need room); it must also be > 0.
    public static let maxQuantity = 10_000.0
    /// Largest portion one quick log may add, kcal (per-unit × quantity).
    public static let maxPortionCalories = 10_000.0
    /// Largest portion of one macro one quick log may add, g.
    public static let maxPortionMacroGrams = 1_000.0
    /// Longest food id, in bytes (printable ASCII, no spaces).
    public static let maxFoodIDLength = 128
    /// Longest food name, in characters (after trimming).
    public static let maxFoodNameLength = 80
    /// Longest unit, in characters (after trimming).
    public static let maxUnitLength = 20
    /// Most recent foods one `UpdateRecentFoods` may carry (the first 6 are kept).
    public static let maxFoodsPerUpdate = 50
    /// Recent foods the state keeps: the first 6 of the app's list.
    public static let keptRecentFoods = 6
    /// Foods the Quick Log widget shows: the first 4 favourites.
    public static let shownQuickLogFoods = 4

    // MARK: Validation

    static func validate(_ totals: NutritionTotals) throws(RuleViolation) {
        for (name, value) in totals.namedValues {
            let limit = name == "calories" ? maxDailyCalories : maxDailyMacroGrams
            guard isAmount(value, atMost: limit) else { throw .invalidNutrition(field: name, value: value, limit: limit) }
        }
    }

    static func validate(_ goals: NutritionGoals) throws(RuleViolation) {
        guard (0...maxCalorieTarget).contains(goals.calorieTarget) else {
            throw .invalidNutritionGoal(field: "calorieTarget", value: Double(goals.calorieTarget), limit: Double(maxCalorieTarget))
        }
        for (name, value) in [
            ("proteinTarget", goals.proteinTarget), ("carbsTarget", goals.carbsTarget), ("fatTarget", goals.fatTarget),
        ] {
            guard isAmount(value, atMost: maxMacroTargetGrams) else {
                throw .invalidNutritionGoal(field: name, value: value, limit: maxMacroTargetGrams)
            }
        }
    }

    /// Checks a whole `UpdateRecentFoods` list and returns it with names and units trimmed.
    static func validated(_ foods: [QuickLogFood]) throws(RuleViolation) -> [QuickLogFood] {
        guard foods.count <= maxFoodsPerUpdate else { throw .tooManyFoods(foods.count) }
        var seen: Set<String> = []
        var result: [QuickLogFood] = []
        for (index, food) in foods.enumerated() {
            let food = try validated(food, at: index)
            guard seen.insert(food.id).inserted else { throw .duplicateFoodID(food.id) }
            result.append(food)
        }
        return result
    }

    static func validated(_ food: QuickLogFood, at index: Int) throws(RuleViolation) -> QuickLogFood {
        try validateFoodID(food.id)
        var food = food
        food.name = trimmed(food.name)
        guard (1...maxFoodNameLength).contains(food.name.count), !hasControlCharacters(food.name) else {
            throw .invalidFoodName(index: index, excerpt: excerpt(food.name))
        }
        food.unit = trimmed(food.unit)
        guard (1...maxUnitLength).contains(food.unit.count),
            food.unit.unicodeScalars.allSatisfy({ $0.properties.isAlphabetic || ("0"..."9").contains($0) || " .-".unicodeScalars.contains($0) })
        else { throw .invalidFoodUnit(index: index, excerpt: excerpt(food.unit)) }
        guard food.defaultQuantity.isFinite, food.defaultQuantity > 0, food.defaultQuantity <= maxQuantity else {
            throw .invalidFoodQuantity(index: index, value: food.defaultQuantity)
        }
        for (name, value) in food.perUnit.namedValues {
            let limit = name == "calories" ? maxFoodCalories : maxFoodMacroGrams
            guard isAmount(value, atMost: limit) else {
                throw .invalidFoodNutrition(index: index, detail: "\(name) \(value) per unit is not within 0…\(limit)")
            }
        }
        for (name, value) in food.portion.namedValues {
            let limit = name == "calories" ? maxPortionCalories : maxPortionMacroGrams
            guard value <= limit else {
                throw .invalidFoodNutrition(index: index, detail: "a portion of \(food.defaultQuantity) has \(name) \(value), over \(limit)")
            }
        }
        return food
    }

    /// A food id is 1–128 printable ASCII characters without spaces: safe in a record, a log line
    /// and a URL, and compared byte for byte.
    static func validateFoodID(_ id: String) throws(RuleViolation) {
        guard (1...maxFoodIDLength).contains(id.utf8.count), id.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw .invalidFoodID(excerpt: excerpt(id))
        }
    }

    /// Whether totals after a quick log stay within the daily bounds.
    static func withinDailyBounds(_ totals: NutritionTotals) -> Bool {
        totals.namedValues.allSatisfy { name, value in
            value <= (name == "calories" ? maxDailyCalories : maxDailyMacroGrams)
        }
    }

    static func isAmount(_ value: Double, atMost limit: Double) -> Bool {
        value.isFinite && value >= 0 && value <= limit
    }

    /// `text` without leading and trailing white space (names and units are stored trimmed).
    static func trimmed(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(String.UnicodeScalarView(scalars[first...last]))
    }

    static func hasControlCharacters(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    /// A client string as an error message may quote it: short, on one line.
    static func excerpt(_ text: String) -> String {
        let flat = String(text.unicodeScalars.map { $0.properties.generalCategory == .control ? "?" : Character($0) })
        return flat.count > 40 ? String(flat.prefix(40)) + "…" : flat
    }
}
