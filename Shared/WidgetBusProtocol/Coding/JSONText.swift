import Foundation

/// JSON scalars as bytes, written the way Foundation's `JSONEncoder` writes them (with
/// `.withoutEscapingSlashes`): the wire's bytes must not depend on which encoder produced them.
enum JSONText {
    static let `true`: [UInt8] = Array("true".utf8)
    static let `false`: [UInt8] = Array("false".utf8)
    static let null: [UInt8] = Array("null".utf8)

    /// A string in quotes: `"` and `\` escaped, the control characters below U+0020 as `\b`,
    /// `\f`, `\n`, `\r`, `\t` or `\u00xx` (lowercase hex); everything else, `/` and non-ASCII
    /// included, as its UTF-8 bytes.
    static func appendString(_ string: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { utf8 in
            var mark = 0
            for index in utf8.indices {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[mark..<index]))
                appendEscape(of: byte, to: &bytes)
                mark = index + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[mark...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static func appendEscape(of byte: UInt8, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
        case 0x08: bytes.append(UInt8(ascii: "b"))
        case 0x0C: bytes.append(UInt8(ascii: "f"))
        case 0x0A: bytes.append(UInt8(ascii: "n"))
        case 0x0D: bytes.append(UInt8(ascii: "r"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        default:
            let hex: [UInt8] = Array("0123456789abcdef".utf8)
            bytes.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
        }
    }

    /// Whether `a` sorts before `b` by their UTF-8 bytes, as `JSONEncoder` sorts keys on Linux.
    static func precedes(_ a: String, _ b: String) -> Bool {
        var (a, b) = (a, b)
        return a.withUTF8 { a in
            b.withUTF8 { b in
                let common = min(a.count, b.count)
                let order = common == 0 ? 0 : memcmp(a.baseAddress!, b.baseAddress!, common)
                return order != 0 ? order < 0 : a.count < b.count
            }
        }
    }

    /// The first eight UTF-8 bytes of `key`, big-endian, zero-padded: comparing two of these
    /// orders keys as ``precedes(_:_:)`` does, except where they are equal.
    static func sortPrefix(_ key: String?) -> UInt64 {
        guard var key else { return 0 }
        return key.withUTF8 { utf8 in
            var prefix: UInt64 = 0
            for index in 0..<8 {
                prefix = prefix << 8 | UInt64(index < utf8.count ? utf8[index] : 0)
            }
            return prefix
        }
    }

    /// Decimal, as `description` writes it (up to 15 characters it is a small string: no allocation).
    static func appendInteger<Integer: BinaryInteger>(_ value: Integer, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: value.description.utf8)
    }

    /// Digits with an optional minus sign as `Integer`; nil when anything else is in `text`,
    /// when it has no digit, or when the number is out of `Integer`'s range.
    static func wholeNumber<Integer: FixedWidthInteger>(_ type: Integer.Type, _ text: UnsafeBufferPointer<UInt8>) -> Integer? {
        let negative = text.first == UInt8(ascii: "-")
        let start = negative ? 1 : 0
        guard text.count > start else { return nil }
        var result: Integer = 0
        for index in start..<text.count {
            let digit = text[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            let (shifted, overflowA) = result.multipliedReportingOverflow(by: 10)
            let (next, overflowB) =
                negative ? shifted.subtractingReportingOverflow(Integer(digit)) : shifted.addingReportingOverflow(Integer(digit))
            guard !overflowA, !overflowB else { return nil }
            result = next
        }
        return result
    }

    /// `description` without a trailing `.0` (`2.0` → `2`, `0.1` → `0.1`, `1e-07` as is).
    ///
    /// - Throws: `EncodingError.invalidValue` for NaN and infinities, which JSON cannot carry.
    static func appendFloatingPoint<Float: BinaryFloatingPoint & LosslessStringConvertible>(
        _ value: Float, codingPath: @autoclosure () -> [any CodingKey], to bytes: inout [UInt8]
    ) throws {
        guard value.isFinite else {
            throw EncodingError.invalidValue(
                value, .init(codingPath: codingPath(), debugDescription: "\(value) is not representable in JSON"))
        }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        bytes.append(contentsOf: text.utf8)
    }
}
