import Foundation

/// Encodes `Encodable` values as the wire's JSON: exactly the bytes of Foundation's
/// `JSONEncoder` with `[.sortedKeys, .withoutEscapingSlashes]` and ``WireDate`` dates, several
/// times faster, and able to splice ``EncodedJSON`` — a value encoded once — verbatim.
///
/// Why our own: the codec is the pipeline's budget (every message is encoded at least once),
/// and `JSONEncoder` builds a dictionary per object and a fresh encoder per date. This one
/// writes bytes as they come; an object whose keys arrive out of order (most: Swift synthesizes
/// them in declaration order) is reordered once, when it is complete. Keys sort by their UTF-8
/// bytes, as `JSONEncoder` sorts them on Linux; a key written twice keeps its last value.
struct WireJSONEncoder {
    func encode<Value: Encodable>(_ value: Value) throws -> [UInt8] {
        let node = WireEncodingNode(output: WireOutput(), parent: nil, key: nil)
        try node.encodeTopLevel(value)
        return node.output.bytes
    }
}

/// The bytes being written. Shared by the nodes of one encoding; a nested container that can be
/// written out of order gets one of its own (``WireEncodingNode/deferredChild(key:)``).
final class WireOutput {
    /// Only the encoding that owns the output touches it, one call at a time: the dynamic
    /// exclusivity check on every append would cost more than the append.
    @exclusivity(unchecked) var bytes: [UInt8] = []

    init() {
        bytes.reserveCapacity(512)
    }
}

/// One JSON object or array being written: where it starts in the output and where each of its
/// entries lies, so it can be reordered (objects) or completed with deferred entries when it
/// closes.
final class WireContainerFrame {
    struct Entry {
        /// The object key; nil in an array.
        var key: String?
        /// The key's first eight UTF-8 bytes as a big-endian number: most keys are told apart
        /// by comparing these alone.
        var sortPrefix: UInt64
        /// The entry's bytes in the output: `"key":value` in an object, the value in an array.
        var range: Range<Int>
        /// An entry written through a nested container or super encoder, rendered at close.
        var deferred: WireEncodingNode?
    }

    let isObject: Bool
    /// The offset of the opening bracket.
    let start: Int
    private(set) var entries: [Entry] = []
    private var inlineCount = 0
    /// Whether every key so far came after the one before in sorted order (objects only).
    private var isSorted = true
    private var hasDeferred = false

    init(isObject: Bool, output: WireOutput) {
        self.isObject = isObject
        start = output.bytes.count
        output.bytes.append(isObject ? UInt8(ascii: "{") : UInt8(ascii: "["))
    }

    var count: Int { entries.count }

    /// Writes the separator and, in an object, the key; returns where the entry starts.
    func beginEntry(key: String?, in output: WireOutput) -> Int {
        if inlineCount > 0 { output.bytes.append(UInt8(ascii: ",")) }
        let entryStart = output.bytes.count
        if let key {
            JSONText.appendString(key, to: &output.bytes)
            output.bytes.append(UInt8(ascii: ":"))
        }
        return entryStart
    }

    func endEntry(key: String?, start entryStart: Int, in output: WireOutput) {
        add(Entry(key: key, sortPrefix: JSONText.sortPrefix(key), range: entryStart..<output.bytes.count, deferred: nil))
        inlineCount += 1
    }

    func addDeferred(key: String?, _ node: WireEncodingNode) {
        add(Entry(key: key, sortPrefix: JSONText.sortPrefix(key), range: 0..<0, deferred: node))
        hasDeferred = true
    }

    private func add(_ entry: Entry) {
        if isSorted, isObject, let previous = entries.last {
            isSorted = Self.precedes(previous, entry)
        }
        entries.append(entry)
    }

    private static func precedes(_ a: Entry, _ b: Entry) -> Bool {
        a.sortPrefix != b.sortPrefix ? a.sortPrefix < b.sortPrefix : JSONText.precedes(a.key!, b.key!)
    }

    /// Writes the closing bracket; first rewrites the container's bytes in key order, with
    /// deferred entries rendered, when it needs either.
    func close(in output: WireOutput) throws {
        guard hasDeferred || (isObject && !isSorted) else {
            output.bytes.append(isObject ? UInt8(ascii: "}") : UInt8(ascii: "]"))
            return
        }
        let written = Array(output.bytes[start...])
        output.bytes.removeSubrange(start...)
        output.bytes.append(isObject ? UInt8(ascii: "{") : UInt8(ascii: "["))
        for (index, entry) in orderedEntries().enumerated() {
            if index > 0 { output.bytes.append(UInt8(ascii: ",")) }
            if let node = entry.deferred {
                if let key = entry.key, isObject {
                    JSONText.appendString(key, to: &output.bytes)
                    output.bytes.append(UInt8(ascii: ":"))
                }
                try node.finish()
                output.bytes.append(contentsOf: node.output.bytes)
            } else {
                output.bytes.append(contentsOf: written[(entry.range.lowerBound - start)..<(entry.range.upperBound - start)])
            }
        }
        output.bytes.append(isObject ? UInt8(ascii: "}") : UInt8(ascii: "]"))
    }

    /// Arrays in writing order; objects sorted by key, the last entry of a key winning.
    private func orderedEntries() -> [Entry] {
        guard isObject else { return entries }
        // Insertion sort, stable: objects are small, and an entry moves past only greater keys,
        // so of two entries with one key the later stays later.
        var sorted = entries
        for index in sorted.indices.dropFirst() {
            let entry = sorted[index]
            var position = index
            while position > 0, Self.precedes(entry, sorted[position - 1]) {
                sorted[position] = sorted[position - 1]
                position -= 1
            }
            sorted[position] = entry
        }
        var ordered: [Entry] = []
        ordered.reserveCapacity(sorted.count)
        for entry in sorted {
            if let last = ordered.last, last.sortPrefix == entry.sortPrefix, last.key == entry.key {
                ordered[ordered.count - 1] = entry
            } else {
                ordered.append(entry)
            }
        }
        return ordered
    }
}

/// The `Encoder` handed to each value's `encode(to:)`: writes one JSON value into its output.
final class WireEncodingNode: Encoder {
    let output: WireOutput
    private let parent: WireEncodingNode?
    private let key: (any CodingKey)?
    private var frame: WireContainerFrame?
    private var wroteSingleValue = false

    init(output: WireOutput, parent: WireEncodingNode?, key: (any CodingKey)?) {
        self.output = output
        self.parent = parent
        self.key = key
    }

    var codingPath: [any CodingKey] {
        var path: [any CodingKey] = []
        var node: WireEncodingNode? = self
        while let current = node {
            if let key = current.key { path.append(key) }
            node = current.parent
        }
        return path.reversed()
    }

    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(WireKeyedContainer<Key>(node: self, frame: openFrame(isObject: true)))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        WireUnkeyedContainer(node: self, frame: openFrame(isObject: false))
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        WireSingleValueContainer(node: self)
    }

    /// The container this node writes; asking twice (a type that encodes another's fields into
    /// its own object) gives the same one.
    private func openFrame(isObject: Bool) -> WireContainerFrame {
        if let frame {
            precondition(frame.isObject == isObject, "a value asked for both a keyed and an unkeyed container")
            return frame
        }
        precondition(!wroteSingleValue, "a value asked for a container after encoding a single value")
        let frame = WireContainerFrame(isObject: isObject, output: output)
        self.frame = frame
        return frame
    }

    /// Completes the node's value: closes its container, or writes `{}` for a value that
    /// encoded nothing (as `JSONEncoder` does for a nested value).
    func finish() throws {
        if let frame {
            try frame.close(in: output)
        } else if !wroteSingleValue {
            output.bytes.append(contentsOf: [UInt8(ascii: "{"), UInt8(ascii: "}")])
        }
    }

    func encodeTopLevel<Value: Encodable>(_ value: Value) throws {
        if try encodeScalar(value) { return }
        try value.encode(to: self)
        guard frame != nil || wroteSingleValue else {
            throw EncodingError.invalidValue(
                value, .init(codingPath: [], debugDescription: "Top-level \(Value.self) did not encode any values."))
        }
        try finish()
    }

    /// Writes a nested value at the current position of the output.
    func encodeNested<Value: Encodable>(_ value: Value, key: (any CodingKey)?) throws {
        if try encodeScalar(value) { return }
        let child = WireEncodingNode(output: output, parent: self, key: key)
        try value.encode(to: child)
        try child.finish()
    }

    /// A node for a nested container or super encoder, which its caller may write at any time
    /// while this node's container is open: it writes to an output of its own, copied in when
    /// this node's container closes.
    func deferredChild(key: (any CodingKey)?) -> WireEncodingNode {
        WireEncodingNode(output: WireOutput(), parent: self, key: key)
    }

    func markSingleValue() {
        precondition(frame == nil && !wroteSingleValue, "a single value container encoded twice")
        wroteSingleValue = true
    }

    /// Writes the values the wire writes directly — dates, pre-encoded JSON, strings, numbers,
    /// booleans — and returns whether `value` was one of them. Tells them apart by comparing
    /// metatypes, not by casting: every nested value passes here, and a failed dynamic cast
    /// costs more than writing most values.
    private func encodeScalar<Value: Encodable>(_ value: Value) throws -> Bool {
        let type = Value.self
        if type == String.self {
            JSONText.appendString(unsafeBitCast(value, to: String.self), to: &output.bytes)
        } else if type == Date.self {
            output.bytes.append(UInt8(ascii: "\""))
            WireDate.append(unsafeBitCast(value, to: Date.self), to: &output.bytes)
            output.bytes.append(UInt8(ascii: "\""))
        } else if type == EncodedJSON.self {
            output.bytes.append(contentsOf: unsafeBitCast(value, to: EncodedJSON.self).bytes)
        } else if type == Int.self {
            JSONText.appendInteger(unsafeBitCast(value, to: Int.self), to: &output.bytes)
        } else if type == UInt64.self {
            JSONText.appendInteger(unsafeBitCast(value, to: UInt64.self), to: &output.bytes)
        } else if type == Double.self {
            try JSONText.appendFloatingPoint(unsafeBitCast(value, to: Double.self), codingPath: codingPath, to: &output.bytes)
        } else if type == Bool.self {
            write(unsafeBitCast(value, to: Bool.self))
        } else {
            return false
        }
        return true
    }
}

/// The primitive writes every container shares.
extension WireEncodingNode {
    func write(_ value: Bool) {
        output.bytes.append(contentsOf: value ? JSONText.true : JSONText.false)
    }

    func write(_ value: String) {
        JSONText.appendString(value, to: &output.bytes)
    }

    func write<Integer: BinaryInteger>(_ value: Integer) {
        JSONText.appendInteger(value, to: &output.bytes)
    }

    func write<Float: BinaryFloatingPoint & LosslessStringConvertible>(_ value: Float, key: (any CodingKey)?) throws {
        try JSONText.appendFloatingPoint(value, codingPath: self.codingPath + (key.map { [$0] } ?? []), to: &output.bytes)
    }

    func writeNull() {
        output.bytes.append(contentsOf: JSONText.null)
    }
}

struct WireKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: WireEncodingNode
    let frame: WireContainerFrame

    var codingPath: [any CodingKey] { node.codingPath }

    private func entry(_ key: Key, _ write: () throws -> Void) rethrows {
        let start = frame.beginEntry(key: key.stringValue, in: node.output)
        try write()
        frame.endEntry(key: key.stringValue, start: start, in: node.output)
    }

    mutating func encodeNil(forKey key: Key) throws { entry(key) { node.writeNull() } }
    mutating func encode(_ value: Bool, forKey key: Key) throws { entry(key) { node.write(value) } }
    mutating func encode(_ value: String, forKey key: Key) throws { entry(key) { node.write(value) } }
    mutating func encode(_ value: Double, forKey key: Key) throws { try entry(key) { try node.write(value, key: key) } }
    mutating func encode(_ value: Float, forKey key: Key) throws { try entry(key) { try node.write(value, key: key) } }
    mutating func encode(_ value: Int, forKey key: Key) throws { entry(key) { node.write(value) } }
    mutating func encode(_ value: Int8, forKey key: Key) throws { entry(key) { node.write(value) } }
    mutating func encode(_ value: Int16, forKey key: Key) throws { entry(key) { node.write(value) } }
    mutating func encode(_ value: Int32, forKey key: Key) throws { entry(key) { node.write(value) } }
    mutating func encode(_ value: Int64, forKey key: Key) throws { entry(key) { node.write(value) } }
    mutating func encode(_ value: UInt, forKey key: Key) throws { entry(key) { node.write(value) } }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { entry(key) { node.write(value) } }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { entry(key) { node.write(value) } }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { entry(key) { node.write(value) } }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { entry(key) { node.write(value) } }

    mutating func encode<Value: Encodable>(_ value: Value, forKey key: Key) throws {
        try entry(key) { try node.encodeNested(value, key: key) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        deferred(key).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        deferred(key).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        let key = WireSuperKey()
        let child = node.deferredChild(key: key)
        frame.addDeferred(key: key.stringValue, child)
        return child
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        deferred(key)
    }

    private func deferred(_ key: Key) -> WireEncodingNode {
        let child = node.deferredChild(key: key)
        frame.addDeferred(key: key.stringValue, child)
        return child
    }
}

struct WireUnkeyedContainer: UnkeyedEncodingContainer {
    let node: WireEncodingNode
    let frame: WireContainerFrame

    var codingPath: [any CodingKey] { node.codingPath }
    var count: Int { frame.count }

    private func element(_ write: () throws -> Void) rethrows {
        let start = frame.beginEntry(key: nil, in: node.output)
        try write()
        frame.endEntry(key: nil, start: start, in: node.output)
    }

    mutating func encodeNil() throws { element { node.writeNull() } }
    mutating func encode(_ value: Bool) throws { element { node.write(value) } }
    mutating func encode(_ value: String) throws { element { node.write(value) } }
    mutating func encode(_ value: Double) throws { try element { try node.write(value, key: WireIndexKey(frame.count)) } }
    mutating func encode(_ value: Float) throws { try element { try node.write(value, key: WireIndexKey(frame.count)) } }
    mutating func encode(_ value: Int) throws { element { node.write(value) } }
    mutating func encode(_ value: Int8) throws { element { node.write(value) } }
    mutating func encode(_ value: Int16) throws { element { node.write(value) } }
    mutating func encode(_ value: Int32) throws { element { node.write(value) } }
    mutating func encode(_ value: Int64) throws { element { node.write(value) } }
    mutating func encode(_ value: UInt) throws { element { node.write(value) } }
    mutating func encode(_ value: UInt8) throws { element { node.write(value) } }
    mutating func encode(_ value: UInt16) throws { element { node.write(value) } }
    mutating func encode(_ value: UInt32) throws { element { node.write(value) } }
    mutating func encode(_ value: UInt64) throws { element { node.write(value) } }

    mutating func encode<Value: Encodable>(_ value: Value) throws {
        let key = WireIndexKey(frame.count)
        try element { try node.encodeNested(value, key: key) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        deferred().container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        deferred().unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        deferred()
    }

    private func deferred() -> WireEncodingNode {
        let child = node.deferredChild(key: WireIndexKey(frame.count))
        frame.addDeferred(key: nil, child)
        return child
    }
}

struct WireSingleValueContainer: SingleValueEncodingContainer {
    let node: WireEncodingNode

    var codingPath: [any CodingKey] { node.codingPath }

    private func value(_ write: () throws -> Void) rethrows {
        node.markSingleValue()
        try write()
    }

    mutating func encodeNil() throws { value { node.writeNull() } }
    mutating func encode(_ value: Bool) throws { self.value { node.write(value) } }
    mutating func encode(_ value: String) throws { self.value { node.write(value) } }
    mutating func encode(_ value: Double) throws { try self.value { try node.write(value, key: nil) } }
    mutating func encode(_ value: Float) throws { try self.value { try node.write(value, key: nil) } }
    mutating func encode(_ value: Int) throws { self.value { node.write(value) } }
    mutating func encode(_ value: Int8) throws { self.value { node.write(value) } }
    mutating func encode(_ value: Int16) throws { self.value { node.write(value) } }
    mutating func encode(_ value: Int32) throws { self.value { node.write(value) } }
    mutating func encode(_ value: Int64) throws { self.value { node.write(value) } }
    mutating func encode(_ value: UInt) throws { self.value { node.write(value) } }
    mutating func encode(_ value: UInt8) throws { self.value { node.write(value) } }
    mutating func encode(_ value: UInt16) throws { self.value { node.write(value) } }
    mutating func encode(_ value: UInt32) throws { self.value { node.write(value) } }
    mutating func encode(_ value: UInt64) throws { self.value { node.write(value) } }

    mutating func encode<Value: Encodable>(_ value: Value) throws {
        try self.value { try node.encodeNested(value, key: nil) }
    }
}

/// The key `superEncoder()` writes under, as `JSONEncoder` names it.
struct WireSuperKey: CodingKey {
    var stringValue: String { "super" }
    var intValue: Int? { nil }
    init() {}
    init?(stringValue: String) { nil }
    init?(intValue: Int) { nil }
}

/// An array index in a coding path.
struct WireIndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { "Index \(intValue ?? 0)" }
    init(_ index: Int) { intValue = index }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { self.intValue = intValue }
}
