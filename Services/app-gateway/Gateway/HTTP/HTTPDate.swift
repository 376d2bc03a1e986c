import Foundation

/// The `Date` header's text (RFC 9110 §5.6.7, IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`), for
/// the responses the gateway writes itself rather than through Hummingbird, which dates its own.
enum HTTPDate {
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    static var now: String { text(of: Date()) }

    static func text(of date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0)!
        let parts = calendar.dateComponents([.weekday, .day, .month, .year, .hour, .minute, .second], from: date)
        func two(_ value: Int?) -> String { value.map { $0 < 10 ? "0\($0)" : "\($0)" } ?? "00" }
        return "\(days[(parts.weekday ?? 1) - 1]), \(two(parts.day)) \(months[(parts.month ?? 1) - 1]) \(parts.year ?? 1970) "
            + "\(two(parts.hour)):\(two(parts.minute)):\(two(parts.second)) GMT"
    }
}
