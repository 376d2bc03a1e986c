import Foundation

@testable import BusRuntime

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
