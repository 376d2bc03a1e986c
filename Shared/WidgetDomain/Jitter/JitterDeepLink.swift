/// The URLs the Jitter widget opens in the app.
public enum JitterDeepLink {
    /// `jitter://complete-drink?sessionId=<id>`: hands the finished drink to the app. The id is
    /// percent-encoded (everything but RFC 3986 unreserved characters), so no id can add query
    /// parameters or break the URL.
    public static func completeDrink(sessionId: String) -> String {
        "jitter://complete-drink?sessionId=" + percentEncoded(sessionId)
    }

    static func percentEncoded(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF")
        var result = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                result += "%" + String(hex[Int(byte >> 4)]) + String(hex[Int(byte & 0x0F)])
            }
        }
        return result
    }
}
