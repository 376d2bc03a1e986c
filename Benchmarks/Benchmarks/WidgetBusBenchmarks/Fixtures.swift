import Foundation
import WidgetBusProtocol
import WidgetDomain

/// The fixed inputs every benchmark shares: one clock reading, one user in one zone, seeded
/// randomness and fixed ids. Nothing here reads the real clock or the system's random source, so
/// each run measures the same work on the same values.
enum Fixtures {
    /// 2026-11-22T09:30:00Z, a Sunday morning in Berlin: a whole second, so no encoding depends
    /// on a fraction, and far enough from midnight that "today" is the same day in every zone
    /// the fixtures use.
    static let now = Date(timeIntervalSince1970: 1_795_339_800)
    static let timeZone = TimeZone(identifier: "Europe/Berlin")!
    static let user = "alice"
    /// The id of every request frame, and the `causedBy` of every event.
    static let requestID = "6a1f0c9e-2b7d-4e55-8c3a-9d41b7e2f009"
    /// A publisher epoch as the services draw them (16 hex digits).
    static let epoch = "9c41e07a5b2d83f6"
    /// The state version and event sequence the encoded messages carry.
    static let sequence: UInt64 = 1_042
    /// The metrics version Stress Monitor timelines carry.
    static let metricsVersion: UInt64 = 317

    /// The context intent-handler reduces an intent in, at `date`: the user's zone and a seeded
    /// random source in place of the system's.
    static func context(at date: Date = now) -> ReduceContext {
        ReduceContext(now: date, timeZone: timeZone, random: RandomSource(SeededRandom(seed: 42)))
    }

    /// An intent request as a client sends it to intent-handler: one frame, the wire's JSON.
    static func intentFrame(_ type: MessageType, _ body: some Encodable & Sendable, codec: WireCodec) -> Data {
        fixture("the \(type.rawValue) frame") {
            try codec.encode(Envelope(id: requestID, type: type.rawValue, user: user, sentAt: now, body: body))
        }
    }

    /// The favourites the Diet app syncs: ten foods, of which the state keeps the first six.
    static let foods: [QuickLogFood] = [
        QuickLogFood(id: "oatmeal", name: "Oatmeal", calories: 3.8, protein: 0.13, carbs: 0.67, fat: 0.07, defaultQuantity: 80, unit: "g"),
        QuickLogFood(id: "banana", name: "Banana", calories: 105, protein: 1.3, carbs: 27, fat: 0.4, defaultQuantity: 1, unit: "piece"),
        QuickLogFood(id: "greek-yogurt", name: "Greek Yogurt", calories: 0.97, protein: 0.09, carbs: 0.04, fat: 0.05, defaultQuantity: 170, unit: "g"),
        QuickLogFood(id: "almonds", name: "Almonds", calories: 5.8, protein: 0.21, carbs: 0.22, fat: 0.5, defaultQuantity: 28, unit: "g"),
        QuickLogFood(id: "chicken-breast", name: "Chicken Breast", calories: 1.65, protein: 0.31, carbs: 0, fat: 0.036, defaultQuantity: 150, unit: "g"),
        QuickLogFood(id: "espresso", name: "Espresso", calories: 3, protein: 0.1, carbs: 0.5, fat: 0.1, defaultQuantity: 1, unit: "cup"),
        QuickLogFood(id: "apple", name: "Apple", calories: 95, protein: 0.5, carbs: 25, fat: 0.3, defaultQuantity: 1, unit: "piece"),
        QuickLogFood(id: "rice", name: "Basmati Rice", calories: 1.3, protein: 0.027, carbs: 0.28, fat: 0.003, defaultQuantity: 150, unit: "g"),
        QuickLogFood(id: "eggs", name: "Boiled Egg", calories: 78, protein: 6.3, carbs: 0.6, fat: 5.3, defaultQuantity: 2, unit: "piece"),
        QuickLogFood(id: "salmon", name: "Salmon Fillet", calories: 2.08, protein: 0.2, carbs: 0, fat: 0.13, defaultQuantity: 120, unit: "g"),
    ]

    /// A chest strap's recording of `count` RR intervals (ms): about 75 bpm with breathing-paced
    /// variation and noise, and a missed beat (one interval twice as long, an artefact the
    /// analysis drops) every 97 beats. The same `seed` gives the same recording.
    static func rrIntervals(count: Int, seed: UInt64 = 7) -> [Double] {
        var random = SeededRandom(seed: seed)
        return (0..<count).map { beat in
            if beat % 97 == 96 { return 1_600 }
            let breathing = 40 * sin(Double(beat) * 2 * .pi / 5)
            let noise = Double(random.next() % 31) - 15
            return 800 + breathing + noise
        }
    }
}

/// The value `make` builds; a fixture that does not build is a mistake in this suite, not a
/// measurement, so it stops the run naming `what`.
func fixture<Value>(_ what: String, _ make: () throws -> Value) -> Value {
    do {
        return try make()
    } catch {
        fatalError("benchmark fixture \(what) does not build: \(error)")
    }
}
