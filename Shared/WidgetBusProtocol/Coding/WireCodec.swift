import Foundation

/// The one JSON encoding of the wire: sorted keys (byte-identical output in every process) and
/// ISO-8601 UTC dates with milliseconds (`2026-11-22T09:30:00.000Z`); dates are also read without
/// the fraction. Encoding is ``WireJSONEncoder``'s (the bytes of Foundation's `JSONEncoder` with
/// `.sortedKeys` and `.withoutEscapingSlashes`, faster, and splicing ``EncodedJSON``); decoding
/// is ``WireJSONDecoder``'s (strict RFC 8259 JSON, faster than Foundation's `JSONDecoder`).
///
/// Not shared across threads: each thread that encodes or decodes owns one codec.
public final class WireCodec {
    private let encoder = WireJSONEncoder()
    private let decoder = WireJSONDecoder()

    public init() {}

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
