import Foundation

/// The one JSON encoding of the wire: sorted keys (byte-identical output in every process) and
/// ISO-8601 UTC dates with milliseconds (`2026-11-22T09:30:00.000Z`); dates are also read without
/// the fraction.
///
/// Not shared across threads: each thread that encodes or decodes owns one codec.
public final class WireCodec {
    public let encoder: JSONEncoder
    public let decoder: JSONDecoder

    public init() {
        encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(WireDate.format(date))
        }
        decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = WireDate.parse(text) else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "expected an ISO-8601 date, got \(text)")
            }
            return date
        }
    }

    public func encode(_ value: some Encodable) throws -> Data {
        try encoder.encode(value)
    }

    public func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try decoder.decode(type, from: data)
    }
}

/// ISO-8601 dates as the wire writes them, through `Date.ISO8601FormatStyle` (fast, unlike
/// `ISO8601DateFormatter`).
public enum WireDate {
    private static let withFraction = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    private static let withoutFraction = Date.ISO8601FormatStyle()

    /// Rounds to the nearest millisecond (the style truncates), so that a date read from the
    /// wire is written back byte-identical.
    public static func format(_ date: Date) -> String {
        date.addingTimeInterval(0.0005).formatted(withFraction)
    }

    public static func parse(_ text: String) -> Date? {
        (try? withFraction.parse(text)) ?? (try? withoutFraction.parse(text))
    }
}
