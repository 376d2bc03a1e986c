/// A record a widget produced that must reach the backend: a check-in, a food log or a finished
/// drink.
///
/// Records are keyed by `id` within their collection: a changed record (a check-in marked done)
/// replaces the pending one, and the sync target upserts by the same id.
public enum PendingRecord: Codable, Equatable, Sendable {
    case tensionCheckIn(StressCheckIn)
    case foodLog(FoodLogEntry)
    case finishedDrink(FinishedDrink)

    public var id: String {
        switch self {
        case .tensionCheckIn(let record): record.id
        case .foodLog(let record): record.id
        case .finishedDrink(let record): record.id
        }
    }

    /// The record's collection name, which is also its table at the sync target.
    public var collection: String {
        switch self {
        case .tensionCheckIn: "stress_check_ins"
        case .foodLog: "food_logs"
        case .finishedDrink: "drink_sessions"
        }
    }

    private enum CodingKeys: String, CodingKey { case collection, record }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try container.decode(String.self, forKey: .collection) {
        case "stress_check_ins": self = .tensionCheckIn(try container.decode(StressCheckIn.self, forKey: .record))
        case "food_logs": self = .foodLog(try container.decode(FoodLogEntry.self, forKey: .record))
        case "drink_sessions": self = .finishedDrink(try container.decode(FinishedDrink.self, forKey: .record))
        case let other:
            throw DecodingError.dataCorruptedError(
                forKey: .collection, in: container, debugDescription: "unknown record collection \(other)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(collection, forKey: .collection)
        switch self {
        case .tensionCheckIn(let record): try container.encode(record, forKey: .record)
        case .foodLog(let record): try container.encode(record, forKey: .record)
        case .finishedDrink(let record): try container.encode(record, forKey: .record)
        }
    }
}
