import Foundation

/// Reads a few fields of a JSON object without decoding the rest: where a follower needs only an
/// event's `type` and `sequence` to skip it, or a few fields and the encoded bytes of the others
/// to splice into a file, a full decode of what it carries would be most of its cost.
///
/// It finds values by skipping over the others (strings, nesting and escapes respected) and does
/// not validate what it skips: use it on messages from the bus's own publishers, and decode
/// fully whatever is kept.
public struct JSONFieldScanner {
    private let bytes: [UInt8]
    private let range: Range<Int>

    public init(_ data: Data) {
        bytes = Array(data)
        range = bytes.indices
    }

    private init(bytes: [UInt8], range: Range<Int>) {
        self.bytes = bytes
        self.range = range
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
        return try? JSONDecoder().decode(String.self, from: Data(bytes[value]))
    }

    /// The date under `key`, in the wire's format; nil when absent or not one.
    public func date(_ key: String) -> Date? {
        string(key).flatMap(WireDate.parse)
    }

    /// The value under `key` as it is encoded, to splice into another message unchanged.
    public func encoded(_ key: String) -> EncodedJSON? {
        valueRange(of: key).map { EncodedJSON(bytes: Array(bytes[$0])) }
    }

    /// The objects of the array under `key`; nil when absent or not an array of objects.
    public func objects(inArray key: String) -> [JSONFieldScanner]? {
        guard let value = valueRange(of: key), bytes[value.lowerBound] == UInt8(ascii: "[") else { return nil }
        var elements: [JSONFieldScanner] = []
        var index = skipWhitespace(value.lowerBound + 1, end: value.upperBound)
        while index < value.upperBound - 1 {
            guard bytes[index] == UInt8(ascii: "{"), let end = endOfValue(startingAt: index) else { return nil }
            elements.append(JSONFieldScanner(bytes: bytes, range: index..<end))
            index = skipWhitespace(end, end: value.upperBound)
            if index < value.upperBound - 1 {
                guard bytes[index] == UInt8(ascii: ",") else { return nil }
                index = skipWhitespace(index + 1, end: value.upperBound)
            }
        }
        return elements
    }

    /// The whole number under `key`; nil when absent or not a non-negative integer.
    public func unsignedInteger(_ key: String) -> UInt64? {
        guard let value = valueRange(of: key), !value.isEmpty else { return nil }
        var result: UInt64 = 0
        for byte in bytes[value] {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            let (shifted, overflowA) = result.multipliedReportingOverflow(by: 10)
            let (sum, overflowB) = shifted.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
            guard !overflowA, !overflowB else { return nil }
            result = sum
        }
        return result
    }

    /// The bytes of the value under the top-level `key` of this object.
    public func valueRange(of key: String) -> Range<Int>? {
        let wanted = Array(key.utf8)
        var index = skipWhitespace(range.lowerBound)
        guard index < range.upperBound, bytes[index] == UInt8(ascii: "{") else { return nil }
        index += 1
        while true {
            index = skipWhitespace(index)
            guard index < range.upperBound, bytes[index] == UInt8(ascii: "\""),
                let keyEnd = endOfString(startingAt: index)
            else { return nil }
            let isWanted = bytes[(index + 1)..<(keyEnd - 1)].elementsEqual(wanted)
            index = skipWhitespace(keyEnd)
            guard index < range.upperBound, bytes[index] == UInt8(ascii: ":") else { return nil }
            let valueStart = skipWhitespace(index + 1)
            guard let valueEnd = endOfValue(startingAt: valueStart) else { return nil }
            if isWanted { return valueStart..<valueEnd }
            index = skipWhitespace(valueEnd)
            guard index < range.upperBound, bytes[index] == UInt8(ascii: ",") else { return nil }
            index += 1
        }
    }

    private func skipWhitespace(_ start: Int, end: Int? = nil) -> Int {
        var index = start
        while index < end ?? range.upperBound, Self.isWhitespace(bytes[index]) { index += 1 }
        return index
    }

    /// The index after the closing quote of the string opening at `start`.
    private func endOfString(startingAt start: Int) -> Int? {
        var index = start + 1
        while index < range.upperBound {
            switch bytes[index] {
            case UInt8(ascii: "\\"): index += 2
            case UInt8(ascii: "\""): return index + 1
            default: index += 1
            }
        }
        return nil
    }

    /// The index after the value starting at `start`.
    private func endOfValue(startingAt start: Int) -> Int? {
        guard start < range.upperBound else { return nil }
        switch bytes[start] {
        case UInt8(ascii: "\""):
            return endOfString(startingAt: start)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            var index = start
            while index < range.upperBound {
                switch bytes[index] {
                case UInt8(ascii: "\""):
                    guard let end = endOfString(startingAt: index) else { return nil }
                    index = end
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
            while index < range.upperBound, !Self.endsScalar(bytes[index]) { index += 1 }
            return index > start ? index : nil
        }
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private static func endsScalar(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: ",") || byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") || isWhitespace(byte)
    }
}
