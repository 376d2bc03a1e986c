import Foundation
@testable import WidgetDomain

/// Fixed inputs of the Diet tests: zones, instants, foods and a synced state.
enum DietFixture {
    static let berlin = Fixture.timeZone
    static let newYork = TimeZone(identifier: "America/New_York")!
    static let tokyo = TimeZone(identifier: "Asia/Tokyo")!
    static let santiago = TimeZone(identifier: "America/Santiago")!

    /// 2026-11-22, the local day of `Fixture.now` (10:30 in Berlin).
    static let today = DayKey(year: 2026, month: 11, day: 22)

    /// An instant written with its offset, e.g. `2026-03-08T10:00:00-04:00`.
    static func instant(_ text: String) -> Date {
        let formatter = ISO8601DateFormatter()
        guard let date = formatter.date(from: text) else { fatalError("bad fixture instant \(text)") }
        return date
    }

    static func context(now: Date = Fixture.now, zone: TimeZone = berlin, seed: UInt64 = 42) -> ReduceContext {
        ReduceContext(now: now, timeZone: zone, random: RandomSource(SeededRandom(seed: seed)))
    }

    static func calendar(_ zone: TimeZone = berlin) -> LocalCalendar {
        LocalCalendar(timeZone: zone)
    }

    /// One bowl: 150 kcal, 5 g protein, 27 g carbs, 3 g fat.
    static let oats = QuickLogFood(
        id: "oats", name: "Oatmeal", calories: 150, protein: 5, carbs: 27, fat: 3, defaultQuantity: 1, unit: "bowl")
    /// Per gram, 120 g a portion: 90 kcal, 1.875 g protein, 30 g carbs, 0 g fat (exact in binary).
    static let banana = QuickLogFood(
        id: "banana", name: "Banana", calories: 0.75, protein: 0.015625, carbs: 0.25, fat: 0, defaultQuantity: 120, unit: "g")

    static func food(_ index: Int) -> QuickLogFood {
        QuickLogFood(
            id: "food-\(index)", name: "Food \(index)", calories: Double(100 + index), protein: 1, carbs: 2, fat: 3,
            defaultQuantity: 1, unit: "serving")
    }

    static let lunch = NutritionTotals(calories: 1200, protein: 80, carbs: 150, fat: 40)

    /// Synced on `today` in Berlin with `lunch` eaten, default goals and oats + banana as favourites.
    static let synced = DietState(
        lastUpdated: Fixture.now, dayKey: today, nutrition: lunch, goals: .default, recentFoods: [oats, banana])

    static let mindful: DietState = {
        var state = synced
        state.trackingMode = .mindful
        return state
    }()
}
