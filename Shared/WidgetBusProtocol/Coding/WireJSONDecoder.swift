import Foundation

/// Decodes the wire's JSON into `Decodable` values: the reading side of ``WireJSONEncoder``.
///
/// Why our own: decoding was the largest item left in timeline-service's profile (a third of
/// its CPU, reading each state event) and in metrics-ingest's batched path. Foundation's
/// `JSONDecoder` builds a dictionary of `String` keys for every object it reads and runs a
/// closure with a fresh decoder for every date. This one parses the payload once into a
/// ``JSONTape``, then looks keys up by comparing bytes and reads strings, numbers and dates
/// straight from the payload, with one decoder for the whole value.
///
/// What it accepts, as docs/PROTOCOL.md states it: one RFC 8259 JSON text (see ``JSONTape``); keys
/// compared by their UTF-8 bytes, and of a key repeated in an object, the first; for an integer,
/// a number whose value is a whole number in the type's range (`7`, `7.0` and `7e0` alike; with
/// a fraction or an exponent, below 2^53); for a `Double`, any number it can hold, correctly
/// rounded (not one so small it would read as zero); for a `Date`, ``WireDate``'s text. `Data`,
/// `URL` and `Decimal` have no form of their own on the wire: nothing there uses them.
struct WireJSONDecoder {
    func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
        let decoder = WireDecodingNode(tape: try JSONTape(parsing: data), value: 0, codingPath: [])
        return try decoder.decode(Value.self, at: 0, key: nil)
    }
}

/// The `Decoder` every value of one payload is read through. Nested values reuse it: it moves
/// to the nested value and its coding path grows for the call, then both are restored. Only
/// nested containers and super decoders, which a caller may keep, get a node of their own.
final class WireDecodingNode: Decoder {
    let tape: JSONTape
    // Only the decoding that owns the node touches it, one call at a time: the dynamic
    // exclusivity checks on these two, made for every nested value, cost more than the moves.
    /// The token of the value being decoded.
    @exclusivity(unchecked) private var value: Int
    @exclusivity(unchecked) private(set) var codingPath: [any CodingKey]

    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(tape: JSONTape, value: Int, codingPath: [any CodingKey]) {
        self.tape = tape
        self.value = value
        self.codingPath = codingPath
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        try expect(.object, [String: Any].self, at: value, key: nil)
        return KeyedDecodingContainer(WireKeyedDecodingContainer<Key>(decoder: self, object: value))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try expect(.array, [Any].self, at: value, key: nil)
        return WireUnkeyedDecodingContainer(decoder: self, array: value)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        WireSingleValueDecodingContainer(decoder: self, value: value)
    }

    /// A node of its own for the value at `index`, under `key`.
    func child(at index: Int, key: any CodingKey) -> WireDecodingNode {
        WireDecodingNode(tape: tape, value: index, codingPath: codingPath + [key])
    }

    /// Decodes the value at `index` (under `key`, nil for the same value through a single-value
    /// container). Strings, numbers, booleans and dates are read directly; any other type
    /// decodes itself from this node, moved to `index`. Told apart by comparing metatypes, not
    /// by casting: every nested value passes here.
    func decode<Value: Decodable>(_ type: Value.Type, at index: Int, key: (any CodingKey)?) throws -> Value {
        if type == String.self {
            return unsafeBitCast(try string(at: index, key: key), to: Value.self)
        } else if type == Date.self {
            return unsafeBitCast(try date(at: index, key: key), to: Value.self)
        } else if type == Int.self {
            return unsafeBitCast(try integer(Int.self, at: index, key: key), to: Value.self)
        } else if type == UInt64.self {
            return unsafeBitCast(try integer(UInt64.self, at: index, key: key), to: Value.self)
        } else if type == Double.self {
            return unsafeBitCast(try double(at: index, key: key), to: Value.self)
        } else if type == Bool.self {
            return unsafeBitCast(try bool(at: index, key: key), to: Value.self)
        }
        let outer = value
        value = index
        if let key { codingPath.append(key) }
        defer {
            value = outer
            if key != nil { codingPath.removeLast() }
        }
        return try Value(from: self)
    }

    // MARK: Scalars

    func isNull(at index: Int) -> Bool {
        tape.tokens[index].kind == .null
    }

    func string(at index: Int, key: (any CodingKey)?) throws -> String {
        tape.string(try expect(.string, String.self, at: index, key: key))
    }

    func bool(at index: Int, key: (any CodingKey)?) throws -> Bool {
        let token = tape.tokens[index]
        switch token.kind {
        case .true: return true
        case .false: return false
        default: throw mismatch(Bool.self, token, key: key)
        }
    }

    func date(at index: Int, key: (any CodingKey)?) throws -> Date {
        let token = try expect(.string, Date.self, at: index, key: key)
        let parsed = token.isComplex ? WireDate.parse(tape.string(token)) : WireDate.parse(utf8: tape.text(token))
        guard let date = parsed else {
            throw corrupted(key: key, "expected an ISO-8601 date, got \(tape.string(token))")
        }
        return date
    }

    func integer<Integer: FixedWidthInteger>(_ type: Integer.Type, at index: Int, key: (any CodingKey)?) throws -> Integer {
        let token = try expect(.number, Integer.self, at: index, key: key)
        let text = tape.text(token)
        if !token.isComplex, let value = JSONText.wholeNumber(Integer.self, text) { return value }
        // With a fraction or an exponent, through `Double`: exact only below 2^53. A number too
        // small to be told from zero is refused as it is for a `Double`, not read as 0.
        if token.isComplex, let double = try? floatingPoint(Double.self, text, key: key), abs(double) < 0x1p53,
            let value = Integer(exactly: double)
        {
            return value
        }
        throw corrupted(key: key, "the number \(String(decoding: text, as: UTF8.self)) is not a whole number that fits in \(Integer.self)")
    }

    func double(at index: Int, key: (any CodingKey)?) throws -> Double {
        let token = try expect(.number, Double.self, at: index, key: key)
        let text = tape.text(token)
        // Up to 15 digits, a whole number is exact in a Double: no text conversion needed (but
        // `-0` keeps its sign).
        if !token.isComplex, text.count <= 15, let whole = JSONText.wholeNumber(Int64.self, text), whole != 0 || text[0] != UInt8(ascii: "-") {
            return Double(whole)
        }
        return try floatingPoint(Double.self, text, key: key)
    }

    func float(at index: Int, key: (any CodingKey)?) throws -> Float {
        try floatingPoint(Float.self, tape.text(try expect(.number, Float.self, at: index, key: key)), key: key)
    }

    /// The number in `text`, correctly rounded; refused when it is too large for the type, or so
    /// small that it would read as zero.
    private func floatingPoint<Number: BinaryFloatingPoint & LosslessStringConvertible>(
        _ type: Number.Type, _ text: UnsafeBufferPointer<UInt8>, key: (any CodingKey)?
    ) throws -> Number {
        let digits = text.prefix { $0 | 0x20 != UInt8(ascii: "e") }
        let written = String(decoding: text, as: UTF8.self)
        guard let number = Number(written), number.isFinite,
            number != 0 || !digits.contains(where: { (UInt8(ascii: "1")...UInt8(ascii: "9")).contains($0) })
        else {
            throw corrupted(key: key, "the number \(written) does not fit in \(Number.self)")
        }
        return number
    }

    // MARK: Errors, as Foundation's `JSONDecoder` reports them

    /// The token at `index`, if it is of `kind`; otherwise the error decoding `type` from it gives.
    @discardableResult
    func expect(_ kind: JSONTape.Token.Kind, _ type: Any.Type, at index: Int, key: (any CodingKey)?) throws -> JSONTape.Token {
        let token = tape.tokens[index]
        guard token.kind == kind else { throw mismatch(type, token, key: key) }
        return token
    }

    func path(_ key: (any CodingKey)?) -> [any CodingKey] {
        key.map { codingPath + [$0] } ?? codingPath
    }

    private func mismatch(_ type: Any.Type, _ token: JSONTape.Token, key: (any CodingKey)?) -> DecodingError {
        if token.kind == .null {
            return .valueNotFound(type, .init(codingPath: path(key), debugDescription: "Cannot get value of type \(type) -- found null value instead"))
        }
        let found = switch token.kind {
        case .object: "a dictionary"
        case .array: "an array"
        case .string: "a string"
        case .number: "number"
        case .true, .false: "bool"
        case .null: "null"
        }
        return .typeMismatch(type, .init(codingPath: path(key), debugDescription: "Expected to decode \(type) but found \(found) instead."))
    }

    private func corrupted(key: (any CodingKey)?, _ description: String) -> DecodingError {
        .dataCorrupted(.init(codingPath: path(key), debugDescription: description))
    }
}

/// Containers read their coding path from the decoder when an error needs it. They are used
/// while the value that asked for them is being decoded (as every `init(from:)` here uses them);
/// one kept beyond that would name the path of the value being decoded then.
struct WireKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: WireDecodingNode
    let object: Int

    var codingPath: [any CodingKey] { decoder.codingPath }

    var allKeys: [Key] { decoder.tape.keys(of: object).compactMap(Key.init(stringValue:)) }

    func contains(_ key: Key) -> Bool { decoder.tape.member(key.stringValue, of: object) != nil }

    /// The value under `key`, or the error for a missing key.
    private func value(_ key: Key) throws -> Int {
        guard let index = decoder.tape.member(key.stringValue, of: object) else {
            throw DecodingError.keyNotFound(
                key, .init(codingPath: codingPath, debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\")."))
        }
        return index
    }

    /// The value under `key` unless it is absent or null.
    private func presentValue(_ key: Key) -> Int? {
        guard let index = decoder.tape.member(key.stringValue, of: object), !decoder.isNull(at: index) else { return nil }
        return index
    }

    func decodeNil(forKey key: Key) throws -> Bool { decoder.isNull(at: try value(key)) }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decoder.bool(at: try value(key), key: key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decoder.string(at: try value(key), key: key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decoder.double(at: try value(key), key: key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decoder.float(at: try value(key), key: key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(key) }

    private func integer<Integer: FixedWidthInteger>(_ key: Key) throws -> Integer {
        try decoder.integer(Integer.self, at: try value(key), key: key)
    }

    func decode<Value: Decodable>(_ type: Value.Type, forKey key: Key) throws -> Value {
        try decoder.decode(Value.self, at: try value(key), key: key)
    }

    // One lookup for an optional field instead of the three of the protocol's defaults.
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try presentValue(key).map { try decoder.bool(at: $0, key: key) } }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try presentValue(key).map { try decoder.string(at: $0, key: key) } }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try presentValue(key).map { try decoder.double(at: $0, key: key) } }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try presentValue(key).map { try decoder.integer(Int.self, at: $0, key: key) } }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try presentValue(key).map { try decoder.integer(UInt64.self, at: $0, key: key) } }

    func decodeIfPresent<Value: Decodable>(_ type: Value.Type, forKey key: Key) throws -> Value? {
        try presentValue(key).map { try decoder.decode(Value.self, at: $0, key: key) }
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try decoder.child(at: try value(key), key: key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder.child(at: try value(key), key: key).unkeyedContainer()
    }

    /// A decoder for the value under `key`; for an absent key, one reading `null`, as
    /// Foundation's `JSONDecoder` gives.
    func superDecoder(forKey key: Key) throws -> any Decoder {
        decoder.child(at: decoder.tape.member(key.stringValue, of: object) ?? decoder.tape.absentValue, key: key)
    }

    func superDecoder() throws -> any Decoder {
        decoder.child(at: decoder.tape.member("super", of: object) ?? decoder.tape.absentValue, key: WireSuperKey())
    }
}

struct WireUnkeyedDecodingContainer: UnkeyedDecodingContainer {
    let decoder: WireDecodingNode
    let count: Int?
    private(set) var currentIndex = 0
    /// The token of the next element.
    private var position: Int

    init(decoder: WireDecodingNode, array: Int) {
        self.decoder = decoder
        count = Int(decoder.tape.tokens[array].count)
        position = array + 1
    }

    var codingPath: [any CodingKey] { decoder.codingPath }
    var isAtEnd: Bool { currentIndex >= count! }

    /// Reads the next element with `read` and moves past it (not past one that failed).
    private mutating func next<Value>(_ type: Value.Type, _ read: (WireDecodingNode, Int, any CodingKey) throws -> Value) throws -> Value {
        try checkNotAtEnd(type)
        let value = try read(decoder, position, WireIndexKey(currentIndex))
        moveToNext()
        return value
    }

    private func checkNotAtEnd(_ type: Any.Type) throws {
        guard isAtEnd else { return }
        throw DecodingError.valueNotFound(
            type, .init(codingPath: decoder.path(WireIndexKey(currentIndex)), debugDescription: "Unkeyed container is at end."))
    }

    private mutating func moveToNext() {
        position = Int(decoder.tape.tokens[position].next)
        currentIndex += 1
    }

    /// Moves past the next element if it is null.
    mutating func decodeNil() throws -> Bool {
        try checkNotAtEnd(Any?.self)
        guard decoder.isNull(at: position) else { return false }
        moveToNext()
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try next(type) { try $0.bool(at: $1, key: $2) } }
    mutating func decode(_ type: String.Type) throws -> String { try next(type) { try $0.string(at: $1, key: $2) } }
    mutating func decode(_ type: Double.Type) throws -> Double { try next(type) { try $0.double(at: $1, key: $2) } }
    mutating func decode(_ type: Float.Type) throws -> Float { try next(type) { try $0.float(at: $1, key: $2) } }
    mutating func decode(_ type: Int.Type) throws -> Int { try integer() }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try integer() }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try integer() }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try integer() }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try integer() }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try integer() }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try integer() }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try integer() }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try integer() }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try integer() }

    private mutating func integer<Integer: FixedWidthInteger>() throws -> Integer {
        try next(Integer.self) { try $0.integer(Integer.self, at: $1, key: $2) }
    }

    mutating func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
        try next(type) { try $0.decode(Value.self, at: $1, key: $2) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try next(KeyedDecodingContainer<NestedKey>.self) { try $0.child(at: $1, key: $2).container(keyedBy: type) }
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try next((any UnkeyedDecodingContainer).self) { try $0.child(at: $1, key: $2).unkeyedContainer() }
    }

    mutating func superDecoder() throws -> any Decoder {
        try next((any Decoder).self) { $0.child(at: $1, key: $2) }
    }
}

struct WireSingleValueDecodingContainer: SingleValueDecodingContainer {
    let decoder: WireDecodingNode
    let value: Int

    var codingPath: [any CodingKey] { decoder.codingPath }

    func decodeNil() -> Bool { decoder.isNull(at: value) }

    func decode(_ type: Bool.Type) throws -> Bool { try decoder.bool(at: value, key: nil) }
    func decode(_ type: String.Type) throws -> String { try decoder.string(at: value, key: nil) }
    func decode(_ type: Double.Type) throws -> Double { try decoder.double(at: value, key: nil) }
    func decode(_ type: Float.Type) throws -> Float { try decoder.float(at: value, key: nil) }
    func decode(_ type: Int.Type) throws -> Int { try decoder.integer(type, at: value, key: nil) }
    func decode(_ type: Int8.Type) throws -> Int8 { try decoder.integer(type, at: value, key: nil) }
    func decode(_ type: Int16.Type) throws -> Int16 { try decoder.integer(type, at: value, key: nil) }
    func decode(_ type: Int32.Type) throws -> Int32 { try decoder.integer(type, at: value, key: nil) }
    func decode(_ type: Int64.Type) throws -> Int64 { try decoder.integer(type, at: value, key: nil) }
    func decode(_ type: UInt.Type) throws -> UInt { try decoder.integer(type, at: value, key: nil) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try decoder.integer(type, at: value, key: nil) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try decoder.integer(type, at: value, key: nil) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try decoder.integer(type, at: value, key: nil) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decoder.integer(type, at: value, key: nil) }

    func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
        try decoder.decode(type, at: value, key: nil)
    }
}
