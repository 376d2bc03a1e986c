import Foundation
import ServiceSupport
import Synchronization

/// A clock a test sets by hand: timers, deadlines and the times stamped on messages are checked
/// without waiting for them.
public final class ManualClock: WallClock {
    private let time: Mutex<Date>

    /// Starts at 2027-01-15 08:00 UTC unless told otherwise.
    public init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        time = Mutex(start)
    }

    public var now: Date { time.withLock { $0 } }

    public func advance(by seconds: TimeInterval) {
        time.withLock { $0 += seconds }
    }
}
