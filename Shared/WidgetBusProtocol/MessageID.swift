/// The id of a message this process sends: a random (version 4) UUID in lowercase, as
/// docs/PROTOCOL.md specifies for envelope ids.
///
/// Not `UUID().uuidString.lowercased()`: on Linux, Foundation's `UUID()` opens, reads and closes
/// `/dev/urandom` for every id, and every reply and event needs one. The same 122 random bits
/// come from the system generator (`getrandom`) here, and are written as text without the
/// intermediate strings.
public enum MessageID {
    public static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        return format(high: generator.next(), low: generator.next())
    }

    /// `xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx` from 128 bits: the version nibble set to 4 and
    /// the variant bits to `10`, as RFC 9562 defines a random UUID.
    static func format(high: UInt64, low: UInt64) -> String {
        let high = (high & ~0xF000) | 0x4000
        let low = (low & ~(0xC000 << 48)) | (0x8000 << 48)
        return String(unsafeUninitializedCapacity: 36) { text in
            var position = 0
            func write(_ value: UInt64, nibbles: Int) {
                for index in stride(from: nibbles - 1, through: 0, by: -1) {
                    let nibble = UInt8(truncatingIfNeeded: value >> UInt64(index * 4)) & 0xF
                    text[position] = nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
                    position += 1
                }
            }
            func dash() {
                text[position] = UInt8(ascii: "-")
                position += 1
            }
            write(high >> 32, nibbles: 8)
            dash()
            write(high >> 16, nibbles: 4)
            dash()
            write(high, nibbles: 4)
            dash()
            write(low >> 48, nibbles: 4)
            dash()
            write(low, nibbles: 12)
            return position
        }
    }
}
