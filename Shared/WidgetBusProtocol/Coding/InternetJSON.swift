import Foundation

/// The stricter JSON of RFC 7493 (I-JSON) that app-gateway asks of what arrives over HTTP: one
/// RFC 8259 text (``JSONTape``'s rules: UTF-8, nothing after the value) in which no object
/// names a member twice. The bus reads the first of a repeated key; a gateway that let
/// `{"level":3,"level":10}` through would act on a body that another JSON reader would read as
/// level 10, so a repeated key is refused before anything reads the body.
public enum InternetJSON {
    /// Why a text is not I-JSON.
    public enum Refusal: Error, Equatable, Sendable, CustomStringConvertible {
        /// Not one RFC 8259 JSON text (the parser's reason).
        case notJSON(String)
        /// An object names this member twice (names compared by their code points).
        case repeatedKey(String)

        public var description: String {
            switch self {
            case .notJSON(let reason): "not JSON: \(reason)"
            case .repeatedKey(let key): "the key \"\(key)\" appears twice in one object (RFC 7493 §2.3)"
            }
        }
    }

    /// Checks `data`; throws the first reason it is not I-JSON.
    public static func check(_ data: Data) throws(Refusal) {
        let tape: JSONTape
        do {
            tape = try JSONTape(parsing: data)
        } catch let DecodingError.dataCorrupted(context) {
            throw .notJSON(context.debugDescription)
        } catch {
            throw .notJSON("\(error)")
        }
        if let key = tape.firstRepeatedKey() { throw .repeatedKey(key) }
    }
}

extension JSONTape {
    /// The first key an object of the document repeats, in document order; nil when none does.
    /// Keys are compared by their unescaped UTF-8 bytes, not by Unicode equivalence: `"é"` and
    /// `"e\u0301"` are two keys, as RFC 7493 compares names.
    func firstRepeatedKey() -> String? {
        for (index, token) in tokens.enumerated() where token.kind == .object && token.count > 1 {
            var seen: Set<[UInt8]> = []
            var key = index + 1
            for _ in 0..<token.count {
                let name = string(tokens[key])
                if !seen.insert(Array(name.utf8)).inserted { return name }
                key = Int(tokens[key + 1].next)
            }
        }
        return nil
    }
}
