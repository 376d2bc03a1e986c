import Foundation

/// A JSON payload parsed once into a flat list of tokens, one per value and per object key, in
/// document order: what ``WireJSONDecoder`` reads values from without parsing any byte twice.
///
/// Parsing checks that the payload is one JSON text as RFC 8259 defines it — UTF-8 throughout
/// (in strings the decoder never reads too), no trailing commas, no leading zeros, no control
/// characters or lone surrogates in strings, nothing but whitespace after the value — and at
/// most ``maximumDepth`` arrays and objects deep. Anything else is refused as a whole, so a
/// payload is either JSON or `bad_json`, whichever fields a service reads.
final class JSONTape {
    /// How deeply arrays and objects may nest: Foundation's `JSONDecoder` limit, kept so that no
    /// payload it took is refused for depth.
    static let maximumDepth = 512

    struct Token {
        enum Kind: UInt8 {
            case object, array, string, number, `true`, `false`, null
        }

        var kind: Kind
        /// A string with escapes (its text must be unescaped), or a number with a fraction or
        /// an exponent (not read as an integer directly).
        var isComplex: Bool
        /// The value's text: a string's between its quotes, a number's digits.
        var start: Int32
        var end: Int32
        /// An object's members or an array's elements.
        var count: Int32
        /// The token after this value and everything inside it.
        var next: Int32
    }

    /// The payload, with a NUL after it.
    let bytes: UnsafeMutableBufferPointer<UInt8>
    private(set) var tokens: [Token] = []
    /// A `null` token after the document's own: the value of a key that is absent, for
    /// `superDecoder(forKey:)`.
    private(set) var absentValue = 0

    init(parsing data: Data) throws {
        // Token offsets are 32-bit; wire payloads are at most a few MiB.
        guard data.count < Int32.max else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "not valid JSON: \(data.count) bytes is too large"))
        }
        bytes = .allocate(capacity: data.count + 1)
        _ = bytes.initialize(from: data)
        bytes[data.count] = 0
        tokens.reserveCapacity(data.count / 6 + 2)
        // Every stored property is set: if parsing throws, `deinit` frees the bytes.
        var parser = Parser(bytes: UnsafeBufferPointer(rebasing: bytes[..<data.count]))
        var index = try parser.value(at: parser.skipWhitespace(0), depth: 0, into: &tokens)
        index = parser.skipWhitespace(index)
        guard index == data.count else { throw parser.error("unexpected text after the JSON value", at: index) }
        absentValue = tokens.count
        tokens.append(Token(kind: .null, isComplex: false, start: 0, end: 0, count: 0, next: Int32(tokens.count + 1)))
    }

    deinit {
        bytes.deallocate()
    }

    /// The value of the first member of the object at `object` whose key is `name`: the first
    /// of a repeated key counts, as with Foundation's `JSONDecoder`.
    func member(_ name: String, of object: Int) -> Int? {
        var name = name
        return name.withUTF8 { wanted in
            var key = object + 1
            for _ in 0..<tokens[object].count {
                if keyMatches(tokens[key], wanted) { return key + 1 }
                key = Int(tokens[key + 1].next)
            }
            return nil
        }
    }

    private func keyMatches(_ key: Token, _ wanted: UnsafeBufferPointer<UInt8>) -> Bool {
        if key.isComplex { return string(key).utf8.elementsEqual(wanted) }
        let length = Int(key.end - key.start)
        return length == wanted.count && (length == 0 || memcmp(bytes.baseAddress! + Int(key.start), wanted.baseAddress!, length) == 0)
    }

    /// The keys of the object at `object`, in document order, each once.
    func keys(of object: Int) -> [String] {
        var keys: [String] = []
        var seen: Set<String> = []
        var key = object + 1
        for _ in 0..<tokens[object].count {
            let name = string(tokens[key])
            if seen.insert(name).inserted { keys.append(name) }
            key = Int(tokens[key + 1].next)
        }
        return keys
    }

    /// The text of a string token, unescaped.
    func string(_ token: Token) -> String {
        let text = UnsafeBufferPointer(rebasing: bytes[Int(token.start)..<Int(token.end)])
        guard token.isComplex else { return String(decoding: text, as: UTF8.self) }
        return Self.unescape(text)
    }

    /// The raw text of a token (a number's digits, a string without its quotes).
    func text(_ token: Token) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: bytes[Int(token.start)..<Int(token.end)])
    }

    /// A string's text with its escapes replaced; the parser has checked every escape.
    private static func unescape(_ text: UnsafeBufferPointer<UInt8>) -> String {
        var result: [UInt8] = []
        result.reserveCapacity(text.count)
        var index = 0
        while index < text.count {
            let byte = text[index]
            guard byte == UInt8(ascii: "\\") else {
                result.append(byte)
                index += 1
                continue
            }
            let escaped = text[index + 1]
            index += 2
            switch escaped {
            case UInt8(ascii: "b"): result.append(0x08)
            case UInt8(ascii: "f"): result.append(0x0C)
            case UInt8(ascii: "n"): result.append(0x0A)
            case UInt8(ascii: "r"): result.append(0x0D)
            case UInt8(ascii: "t"): result.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = Parser.hexValue(text, at: index)
                index += 4
                if (0xD800...0xDBFF).contains(scalar) {
                    // The parser checked that a low surrogate escape follows.
                    let low = Parser.hexValue(text, at: index + 2)
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    index += 6
                }
                UTF8.encode(Unicode.Scalar(scalar)!) { result.append($0) }
            default: result.append(escaped)  // " \ /
            }
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// The recursive descent over the payload, appending tokens.
    private struct Parser {
        let bytes: UnsafeBufferPointer<UInt8>

        func error(_ reason: String, at index: Int) -> DecodingError {
            DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "not valid JSON: \(reason) at byte \(index)"))
        }

        func skipWhitespace(_ start: Int) -> Int {
            var index = start
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return index
                }
            }
            return index
        }

        /// Parses the value at `index`; returns the index after it.
        mutating func value(at index: Int, depth: Int, into tokens: inout [Token]) throws -> Int {
            guard index < bytes.count else { throw error("a value is missing", at: index) }
            switch bytes[index] {
            case UInt8(ascii: "{"): return try container(at: index, isObject: true, depth: depth + 1, into: &tokens)
            case UInt8(ascii: "["): return try container(at: index, isObject: false, depth: depth + 1, into: &tokens)
            case UInt8(ascii: "\""): return try string(at: index, into: &tokens)
            case UInt8(ascii: "t"): return try literal("true", .true, at: index, into: &tokens)
            case UInt8(ascii: "f"): return try literal("false", .false, at: index, into: &tokens)
            case UInt8(ascii: "n"): return try literal("null", .null, at: index, into: &tokens)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number(at: index, into: &tokens)
            default: throw error("unexpected character", at: index)
            }
        }

        private mutating func container(at start: Int, isObject: Bool, depth: Int, into tokens: inout [Token]) throws -> Int {
            guard depth <= JSONTape.maximumDepth else { throw error("nested more than \(JSONTape.maximumDepth) deep", at: start) }
            let position = tokens.count
            tokens.append(Token(kind: isObject ? .object : .array, isComplex: false, start: Int32(start), end: 0, count: 0, next: 0))
            let closing = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
            var count: Int32 = 0
            var index = skipWhitespace(start + 1)
            if index < bytes.count, bytes[index] == closing {
                index += 1
            } else {
                while true {
                    if isObject {
                        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a key", at: index) }
                        index = skipWhitespace(try string(at: index, into: &tokens))
                        guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':'", at: index) }
                        index = skipWhitespace(index + 1)
                    }
                    index = skipWhitespace(try value(at: index, depth: depth, into: &tokens))
                    count += 1
                    guard index < bytes.count else { throw error("unterminated \(isObject ? "object" : "array")", at: index) }
                    if bytes[index] == closing {
                        index += 1
                        break
                    }
                    guard bytes[index] == UInt8(ascii: ",") else { throw error("expected ',' or a closing bracket", at: index) }
                    index = skipWhitespace(index + 1)
                }
            }
            tokens[position].end = Int32(index)
            tokens[position].count = count
            tokens[position].next = Int32(tokens.count)
            return index
        }

        private func literal(_ word: StaticString, _ kind: Token.Kind, at start: Int, into tokens: inout [Token]) throws -> Int {
            let length = word.utf8CodeUnitCount
            guard start + length <= bytes.count, memcmp(bytes.baseAddress! + start, word.utf8Start, length) == 0 else {
                throw error("unexpected character", at: start)
            }
            tokens.append(Token(kind: kind, isComplex: false, start: Int32(start), end: Int32(start + length), count: 0, next: Int32(tokens.count + 1)))
            return start + length
        }

        /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
        private func number(at start: Int, into tokens: inout [Token]) throws -> Int {
            var index = start
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("a number needs a digit", at: index) }
            if bytes[index] == UInt8(ascii: "0") {
                index += 1
            } else {
                while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            }
            var isComplex = false
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                isComplex = true
                index = try digits(after: index)
            }
            if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
                isComplex = true
                if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "+") || bytes[index + 1] == UInt8(ascii: "-") { index += 1 }
                index = try digits(after: index)
            }
            tokens.append(Token(kind: .number, isComplex: isComplex, start: Int32(start), end: Int32(index), count: 0, next: Int32(tokens.count + 1)))
            return index
        }

        /// The index after one or more digits that follow `index`.
        private func digits(after index: Int) throws -> Int {
            var end = index + 1
            guard end < bytes.count, isDigit(bytes[end]) else { throw error("a number needs a digit", at: end) }
            while end < bytes.count, isDigit(bytes[end]) { end += 1 }
            return end
        }

        private func isDigit(_ byte: UInt8) -> Bool {
            byte &- UInt8(ascii: "0") < 10
        }

        /// A string from its opening quote: control characters, bad escapes, lone surrogates and
        /// invalid UTF-8 are refused.
        private func string(at start: Int, into tokens: inout [Token]) throws -> Int {
            var index = start + 1
            var hasEscapes = false
            while index < bytes.count {
                let byte = bytes[index]
                switch byte {
                case UInt8(ascii: "\""):
                    tokens.append(Token(
                        kind: .string, isComplex: hasEscapes, start: Int32(start + 1), end: Int32(index), count: 0, next: Int32(tokens.count + 1)))
                    return index + 1
                case UInt8(ascii: "\\"):
                    hasEscapes = true
                    index = try escape(at: index)
                case 0..<0x20:
                    throw error("a control character in a string", at: index)
                case 0x80...:
                    index = try utf8Sequence(at: index)
                default:
                    index += 1
                }
            }
            throw error("unterminated string", at: start)
        }

        /// The index after the escape at `index`.
        private func escape(at index: Int) throws -> Int {
            guard index + 1 < bytes.count else { throw error("unterminated string", at: index) }
            switch bytes[index + 1] {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                return index + 2
            case UInt8(ascii: "u"):
                let scalar = try hex(at: index + 2)
                switch scalar {
                case 0xD800...0xDBFF:
                    guard index + 7 < bytes.count, bytes[index + 6] == UInt8(ascii: "\\"), bytes[index + 7] == UInt8(ascii: "u"),
                        (0xDC00...0xDFFF).contains(try hex(at: index + 8))
                    else { throw error("a high surrogate without its low surrogate", at: index) }
                    return index + 12
                case 0xDC00...0xDFFF:
                    throw error("a low surrogate without its high surrogate", at: index)
                default:
                    return index + 6
                }
            default:
                throw error("an invalid escape", at: index)
            }
        }

        private func hex(at index: Int) throws -> UInt32 {
            guard index + 4 <= bytes.count, (index..<(index + 4)).allSatisfy({ bytes[$0].isHexDigit }) else {
                throw error("\\u needs four hex digits", at: index)
            }
            return Self.hexValue(bytes, at: index)
        }

        static func hexValue(_ text: UnsafeBufferPointer<UInt8>, at index: Int) -> UInt32 {
            var value: UInt32 = 0
            for byte in text[index..<(index + 4)] {
                let digit = byte <= UInt8(ascii: "9") ? byte - UInt8(ascii: "0") : (byte | 0x20) - UInt8(ascii: "a") + 10
                value = value << 4 | UInt32(digit)
            }
            return value
        }

        /// The index after the multi-byte UTF-8 sequence at `index` (RFC 3629: no overlong
        /// forms, no surrogates, nothing above U+10FFFF).
        private func utf8Sequence(at index: Int) throws -> Int {
            let lead = bytes[index]
            let length: Int
            var second: ClosedRange<UInt8> = 0x80...0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; second = 0xA0...0xBF
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; second = 0x80...0x9F
            case 0xF0: length = 4; second = 0x90...0xBF
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; second = 0x80...0x8F
            default: throw error("invalid UTF-8", at: index)
            }
            guard index + length <= bytes.count, second.contains(bytes[index + 1]),
                (index + 2..<index + length).allSatisfy({ (0x80...0xBF).contains(bytes[$0]) })
            else { throw error("invalid UTF-8", at: index) }
            return index + length
        }
    }
}

extension UInt8 {
    fileprivate var isHexDigit: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self | 0x20)
    }
}
