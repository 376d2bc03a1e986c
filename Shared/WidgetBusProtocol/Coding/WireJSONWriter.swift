import Foundation

/// Writes wire JSON directly, value by value, for the few types whose encoding is the pipeline's
/// hot path (timelines: ``TimelineBody/encode(to:)``; widget states: ``StateRecord``). It writes the same bytes as
/// ``WireJSONEncoder`` — the same string escaping, numbers and ``WireDate`` dates — without
/// `Encodable`'s per-value containers, boxes and key reordering.
///
/// The rule its callers keep: **an object's keys are written in the wire's sorted order** (by
/// their UTF-8 bytes) and an absent optional is left out, as `encodeIfPresent` leaves it out.
/// Nothing checks the order at run time; the golden files and the tests that compare a writer's
/// output with `JSONEncoder`'s do.
struct WireJSONWriter {
    private(set) var bytes: [UInt8]
    /// Whether the last thing written was a complete value, so that the next key or array
    /// element needs a comma first.
    private var afterValue = false

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Writes an object whose fields `body` writes.
    mutating func object(_ body: (inout WireJSONWriter) throws -> Void) rethrows {
        try container(open: "{", close: "}", body)
    }

    /// Writes an array of `elements`, each written by `element`.
    mutating func array<Elements: Sequence>(
        _ elements: Elements, _ element: (inout WireJSONWriter, Elements.Element) throws -> Void
    ) rethrows {
        try container(open: "[", close: "]") { writer in
            for value in elements { try element(&writer, value) }
        }
    }

    private mutating func container(
        open: Unicode.Scalar, close: Unicode.Scalar, _ body: (inout WireJSONWriter) throws -> Void
    ) rethrows {
        if afterValue { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: open))
        afterValue = false
        try body(&self)
        bytes.append(UInt8(ascii: close))
        afterValue = true
    }

    /// Writes `"key":`; the value written next belongs to it. Keys are plain ASCII names, so
    /// they need no escaping.
    mutating func key(_ key: StaticString) {
        if afterValue { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "\""))
        key.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        afterValue = false
    }

    /// Writes `"key":` for a key known only at run time (a dictionary's), escaped as any string.
    mutating func key(_ key: String) {
        if afterValue { bytes.append(UInt8(ascii: ",")) }
        JSONText.appendString(key, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        afterValue = false
    }

    mutating func value(_ value: String) {
        scalar { JSONText.appendString(value, to: &$0) }
    }

    mutating func value(_ value: Int) {
        scalar { JSONText.appendInteger(value, to: &$0) }
    }

    mutating func value(_ value: UInt64) {
        scalar { JSONText.appendInteger(value, to: &$0) }
    }

    mutating func value(_ value: Bool) {
        scalar { $0.append(contentsOf: value ? JSONText.true : JSONText.false) }
    }

    /// - Throws: `EncodingError.invalidValue` for NaN and infinities, as the encoder does.
    mutating func value(_ value: Double) throws {
        try scalar { try JSONText.appendFloatingPoint(value, codingPath: [], to: &$0) }
    }

    mutating func value(_ value: Date) {
        scalar { bytes in
            bytes.append(UInt8(ascii: "\""))
            WireDate.append(value, to: &bytes)
            bytes.append(UInt8(ascii: "\""))
        }
    }

    /// Writes one value that `append` writes whole.
    private mutating func scalar(_ append: (inout [UInt8]) throws -> Void) rethrows {
        if afterValue { bytes.append(UInt8(ascii: ",")) }
        try append(&bytes)
        afterValue = true
    }

    // MARK: - Fields: a key and its value

    mutating func field(_ key: StaticString, _ value: String) {
        self.key(key)
        self.value(value)
    }

    mutating func field(_ key: StaticString, _ value: Int) {
        self.key(key)
        self.value(value)
    }

    mutating func field(_ key: StaticString, _ value: UInt64) {
        self.key(key)
        self.value(value)
    }

    mutating func field(_ key: StaticString, _ value: Bool) {
        self.key(key)
        self.value(value)
    }

    mutating func field(_ key: StaticString, _ value: Double) throws {
        self.key(key)
        try self.value(value)
    }

    mutating func field(_ key: StaticString, _ value: Date) {
        self.key(key)
        self.value(value)
    }

    /// A string-backed enumeration, written as its raw value (as `Codable` synthesizes it).
    mutating func field<Value: RawRepresentable>(_ key: StaticString, _ value: Value) where Value.RawValue == String {
        field(key, value.rawValue)
    }

    // Optionals: nothing at all when absent.

    mutating func field(_ key: StaticString, ifPresent value: String?) {
        if let value { field(key, value) }
    }

    mutating func field(_ key: StaticString, ifPresent value: Int?) {
        if let value { field(key, value) }
    }

    mutating func field(_ key: StaticString, ifPresent value: UInt64?) {
        if let value { field(key, value) }
    }

    mutating func field(_ key: StaticString, ifPresent value: Double?) throws {
        if let value { try field(key, value) }
    }

    mutating func field(_ key: StaticString, ifPresent value: Date?) {
        if let value { field(key, value) }
    }

    mutating func field<Value: RawRepresentable>(_ key: StaticString, ifPresent value: Value?) where Value.RawValue == String {
        if let value { field(key, value.rawValue) }
    }
}

extension WireEncodingNode {
    /// Writes this node's whole value with `write`, in place of `Encodable`'s containers.
    func writeDirectly(_ write: (inout WireJSONWriter) throws -> Void) throws {
        markSingleValue()
        var writer = WireJSONWriter(bytes: output.bytes)
        output.bytes = []
        defer { output.bytes = writer.bytes }
        try write(&writer)
    }
}
