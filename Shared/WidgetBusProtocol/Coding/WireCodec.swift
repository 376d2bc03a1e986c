import Foundation

/// The one JSON encoding of the wire: sorted keys (byte-identical output in every process) and
/// ISO-8601 UTC dates with milliseconds (`2026-11-22T09:30:00.000Z`); dates are also read without
/// the fraction. Encoding is ``WireJSONEncoder``'s (the bytes of Foundation's `JSONEncoder` with
/// `.sortedKeys` and `.withoutEscapingSlashes`, faster, and splicing ``EncodedJSON``); decoding
/// is Foundation's `JSONDecoder`.
///
/// Not shared across threads: each thread that encodes or decodes owns one codec.
public final class WireCodec {
    public let decoder: JSONDecoder
    private let encoder = WireJSONEncoder()

    public init() {
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
        Data(try encoder.encode(value))
    }

    /// Encodes `value` once, for splicing into the messages that carry it.
    public func encodeOnce(_ value: some Encodable) throws -> EncodedJSON {
        EncodedJSON(bytes: try encoder.encode(value))
    }

    public func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try decoder.decode(type, from: data)
    }
}
