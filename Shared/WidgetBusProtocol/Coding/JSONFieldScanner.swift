import Foundation

/// Reads a few fields of a JSON object without decoding the rest: where a follower needs only an
/// event's `type` and `sequence` to skip it, or a few fields and the encoded bytes of the others
/// to splice into a file, a full decode of what it carries would be most of its cost.
///
/// It finds values by skipping over the others (strings, nesting and escapes respected) and does
/// not validate what it skips: use it on messages from the bus's own publishers, and decode
/// fully whatever is kept. A scanner walks its object once, when it is made, and remembers where
/// each field lies: reading many fields that follow a large one (a timeline's entries) costs
/// one walk over it, not one per field.
public struct JSONFieldScanner: Sendable {
    /// Where one field of the object lies: its key's bytes between the quotes, and its value's.
    private struct Field {
        var key: Range<Int>
        var value: Range<Int>
    }

    private let bytes: [UInt8]
    /// Where this object lies in `bytes`.
    private let range: Range<Int>
    /// The object's fields in the order they appear, up to the first malformed one.
    private let fields: [Field]

    public init(_ data: Data) {
        self.init(bytes: Array(data), range: 0..<data.count)
    }

    private init(bytes: [UInt8], range: Range<Int>) {
        self.bytes = bytes
        self.range = range
        fields = bytes.withUnsafeBufferPointer { Self.fields(in: ScannedText(bytes: $0, end: range.upperBound), from: range.lowerBound) }
    }

    /// The object under `key` of this object; nil when absent or not an object.
    public func object(_ key: String) -> JSONFieldScanner? {
        guard let value = valueRange(of: key), bytes[value.lowerBound] == UInt8(ascii: "{") else { return nil }
        return JSONFieldScanner(bytes: bytes, range: value)
    }

    /// The string under `key`; nil when absent or not a string. One without escapes (as the
    /// wire's type names and identifiers are) is read in place.
    public func string(_ key: String) -> String? {
        guard let value = valueRange(of: key), value.count >= 2, bytes[value.lowerBound] == UInt8(ascii: "\"")
        else { return nil }
        guard bytes[value].contains(UInt8(ascii: "\\")) else {
            return String(decoding: bytes[(value.lowerBound + 1)..<(value.upperBound - 1)], as: UTF8.self)
        }
        return try? WireJSONDecoder().decode(String.self, from: Data(bytes[value]))
    }

    /// The date under `key`, in the wire's format; nil when absent or not one.
    public func date(_ key: String) -> Date? {
        string(key).flatMap(WireDate.parse)
    }

    /// The value under `key` as it is encoded, to splice into another message unchanged.
    public func encoded(_ key: String) -> EncodedJSON? {
        valueRange(of: key).map { EncodedJSON(bytes: Array(bytes[$0])) }
    }

    /// The object itself as it is encoded, to pass on unchanged.
    public var encoded: ArraySlice<UInt8> { bytes[range] }

    /// The objects of the array under `key`; nil when absent or not an array of objects.
    public func objects(inArray key: String) -> [JSONFieldScanner]? {
        guard let value = valueRange(of: key), bytes[value.lowerBound] == UInt8(ascii: "[") else { return nil }
        let elements: [Range<Int>]? = bytes.withUnsafeBufferPointer { buffer in
            let text = ScannedText(bytes: buffer, end: value.upperBound - 1)
            var elements: [Range<Int>] = []
            var index = text.skipWhitespace(value.lowerBound + 1)
            while index < text.end {
                guard buffer[index] == UInt8(ascii: "{"), let end = text.endOfValue(startingAt: index) else { return nil }
                elements.append(index..<end)
                index = text.skipWhitespace(end)
                if index < text.end {
                    guard buffer[index] == UInt8(ascii: ",") else { return nil }
                    index = text.skipWhitespace(index + 1)
                }
            }
            return elements
        }
        return elements?.map { JSONFieldScanner(bytes: bytes, range: $0) }
    }

    /// Every field of the object but those under `keys`, in the order they appear: each key's
    /// bytes (between its quotes) and its value's bytes, as encoded. What an object says besides a
    /// few fields — a timeline entry's content without its dates — to compare or digest without
    /// decoding it.
    public func encodedFields(excluding keys: [String]) -> [(key: ArraySlice<UInt8>, value: ArraySlice<UInt8>)] {
        fields.filter { field in !keys.contains { bytes[field.key].elementsEqual($0.utf8) } }.map { (bytes[$0.key], bytes[$0.value]) }
    }

    /// The whole number under `key`; nil when absent or not a non-negative integer.
    public func unsignedInteger(_ key: String) -> UInt64? {
        guard let value = valueRange(of: key), bytes[value].first != UInt8(ascii: "-") else { return nil }
        return bytes[value].withUnsafeBufferPointer { JSONText.wholeNumber(UInt64.self, $0) }
    }

    /// The bytes of the value under `key`, the first one if the object repeats it.
    private func valueRange(of key: String) -> Range<Int>? {
        let wanted = key.utf8
        return fields.first { bytes[$0.key].elementsEqual(wanted) }?.value
    }

    /// The fields of the object opening at `start` (after any whitespace): every one up to the
    /// closing brace, or up to the first that is malformed or cut off.
    private static func fields(in text: ScannedText, from start: Int) -> [Field] {
        var index = text.skipWhitespace(start)
        guard index < text.end, text.bytes[index] == UInt8(ascii: "{") else { return [] }
        var fields: [Field] = []
        index = text.skipWhitespace(index + 1)
        while index < text.end, text.bytes[index] == UInt8(ascii: "\""), let keyEnd = text.endOfString(startingAt: index) {
            let colon = text.skipWhitespace(keyEnd)
            guard colon < text.end, text.bytes[colon] == UInt8(ascii: ":") else { break }
            let valueStart = text.skipWhitespace(colon + 1)
            guard let valueEnd = text.endOfValue(startingAt: valueStart) else { break }
            fields.append(Field(key: (index + 1)..<(keyEnd - 1), value: valueStart..<valueEnd))
            index = text.skipWhitespace(valueEnd)
            guard index < text.end, text.bytes[index] == UInt8(ascii: ",") else { break }
            index = text.skipWhitespace(index + 1)
        }
        return fields
    }

    /// The bytes being walked, up to `end`, read without bounds checks in optimized builds: the
    /// walk is the scanner's whole cost, and every index is compared with `end` first.
    private struct ScannedText {
        let bytes: UnsafeBufferPointer<UInt8>
        let end: Int

        func skipWhitespace(_ start: Int) -> Int {
            var index = start
            while index < end, JSONFieldScanner.isWhitespace(bytes[index]) { index += 1 }
            return index
        }

        /// The index after the closing quote of the string opening at `start`.
        func endOfString(startingAt start: Int) -> Int? {
            var index = start + 1
            while index < end {
                switch bytes[index] {
                case UInt8(ascii: "\\"): index += 2
                case UInt8(ascii: "\""): return index + 1
                default: index += 1
                }
            }
            return nil
        }

        /// The index after the value starting at `start`.
        func endOfValue(startingAt start: Int) -> Int? {
            guard start < end else { return nil }
            switch bytes[start] {
            case UInt8(ascii: "\""):
                return endOfString(startingAt: start)
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                var depth = 0
                var index = start
                while index < end {
                    switch bytes[index] {
                    case UInt8(ascii: "\""):
                        guard let stringEnd = endOfString(startingAt: index) else { return nil }
                        index = stringEnd
                        continue
                    case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                    case UInt8(ascii: "}"), UInt8(ascii: "]"):
                        depth -= 1
                        if depth == 0 { return index + 1 }
                    default: break
                    }
                    index += 1
                }
                return nil
            default:
                var index = start
                while index < end, !JSONFieldScanner.endsScalar(bytes[index]) { index += 1 }
                return index > start ? index : nil
            }
        }
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private static func endsScalar(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: ",") || byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") || isWhitespace(byte)
    }
}
