import Foundation

/// Bounds every service enforces on what a client controls.
public enum ProtocolLimits {
    /// The protocol version this build speaks.
    public static let version = 1
    /// Largest payload frame answered normally; bigger ones get `payload_too_large`.
    public static let maxPayloadBytes = 64 * 1024
    /// Largest payload metrics-ingest reads on its PULL endpoint: a full batch of samples with
    /// RR recordings needs more than a request; bigger ones are counted as `payload_too_large`.
    public static let maxMetricsPayloadBytes = 1024 * 1024
    /// Most samples in one `MetricBatch`.
    public static let maxBatchSamples = 1_000
    /// Largest frame libzmq accepts at all (`ZMQ_MAXMSGSIZE`); a peer sending more is disconnected
    /// by libzmq before the service sees it, so no reply is possible past this size.
    public static let maxTransportBytes: Int64 = 16 * 1024 * 1024
    /// Longest user id, in UTF-8 bytes.
    public static let maxUserIDBytes = 128
    /// Longest client-generated message id, in UTF-8 bytes.
    public static let maxMessageIDBytes = 128

    /// A user id is 1–128 UTF-8 bytes without `/`, `\`, control, format (zero-width) or line and
    /// paragraph separator characters, and is not `.` or `..`, so it is safe as a topic segment,
    /// a log field and a file name. It is in Unicode NFC: Swift compares strings by canonical
    /// equivalence but the store, topics and file names by bytes, so two spellings of `café`
    /// would be one user in a replica and two everywhere else.
    public static func validateUser(_ user: String) throws(ProtocolError) {
        let bytes = user.utf8
        guard !bytes.isEmpty, bytes.count <= maxUserIDBytes else {
            throw ProtocolError(.invalidUser, "user id must be 1–\(maxUserIDBytes) bytes")
        }
        guard user != ".", user != "..",
            !user.unicodeScalars.contains(where: { Self.forbiddenInUserID($0) })
        else {
            throw ProtocolError(.invalidUser, "user id may not be '.', '..', or contain '/', '\\', control or invisible characters")
        }
        guard bytes.allSatisfy({ $0 < 0x80 }) || bytes.elementsEqual(user.precomposedStringWithCanonicalMapping.utf8) else {
            throw ProtocolError(.invalidUser, "user id must be in Unicode normalization form C (NFC)")
        }
    }

    private static func forbiddenInUserID(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII {  // most ids, told apart without Unicode's tables: its only controls are these
            return scalar.value < 0x20 || scalar.value == 0x7F || scalar == "/" || scalar == "\\"
        }
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator: return true
        default: return false
        }
    }

    public static func validateMessageID(_ id: String) throws(ProtocolError) {
        guard !id.isEmpty, id.utf8.count <= maxMessageIDBytes else {
            throw ProtocolError(.invalidField, "id must be 1–\(maxMessageIDBytes) bytes")
        }
    }
}
