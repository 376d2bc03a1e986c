/// Random (version 4) UUIDs as lowercase text — the ids of generated records and of every
/// message a service sends.
///
/// Written by hand rather than through Foundation's `UUID`: `UUID()` on Linux opens, reads and
/// closes `/dev/urandom` for every id, and its `uuidString` plus `lowercased()` make two strings
/// where one will do.
public enum RandomUUID {
    /// 128 bits from `generator` — the bytes of two draws, each in little-endian order — with the
    /// version nibble set to 4 and the variant bits to `10` (RFC 9562), as
    /// `xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx`.
    public static func string(using generator: inout some RandomNumberGenerator) -> String {
        var bits = (generator.next().littleEndian, generator.next().littleEndian)
        return withUnsafeMutableBytes(of: &bits) { raw in
            raw[6] = (raw[6] & 0x0F) | 0x40
            raw[8] = (raw[8] & 0x3F) | 0x80
            return String(unsafeUninitializedCapacity: 36) { text in
                var position = 0
                for (index, byte) in raw.enumerated() {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        text[position] = UInt8(ascii: "-")
                        position += 1
                    }
                    text[position] = hexDigit(byte >> 4)
                    text[position + 1] = hexDigit(byte & 0xF)
                    position += 2
                }
                return position
            }
        }
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}
