/// A value already encoded as the wire's JSON, written verbatim wherever it is encoded again —
/// how a service encodes a fact once and splices the same bytes into every message that carries
/// it (the stored row, the reply and the event of one new state).
///
/// Only ``WireCodec`` splices; any other encoder is refused, since it would re-encode the bytes
/// as something else.
public struct EncodedJSON: Encodable, Sendable, Hashable {
    public let bytes: [UInt8]

    /// Wraps bytes that hold exactly one JSON value in the wire's encoding.
    public init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    public func encode(to encoder: any Encoder) throws {
        throw EncodingError.invalidValue(
            self, .init(codingPath: encoder.codingPath, debugDescription: "pre-encoded JSON is spliced by WireCodec only"))
    }
}
