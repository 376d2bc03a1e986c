import Foundation
import Synchronization

@testable import ServiceSupport

/// A clock a test sets by hand: timers and deadlines are checked without waiting for them.
final class ManualClock: WallClock {
    private let time: Mutex<Date>

    init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        time = Mutex(start)
    }

    var now: Date { time.withLock { $0 } }

    func advance(by seconds: TimeInterval) {
        time.withLock { $0 += seconds }
    }
}

/// What a replica reported through its `onChange`, until a test takes it.
final class ChangeLog<Change> {
    private var changes: [Change] = []

    func record(_ new: [Change]) {
        changes += new
    }

    func take() -> [Change] {
        defer { changes.removeAll() }
        return changes
    }
}

extension Bus {
    /// Runs turns until `condition` holds or two seconds pass.
    func pump(until condition: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(2)
        while !condition(), Date() < deadline {
            try turn(waitingAtMost: 0.02)
        }
    }
}
