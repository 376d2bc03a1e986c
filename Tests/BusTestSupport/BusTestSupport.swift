import Foundation
import ZeroMQ

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

extension ZMQSocket {
    /// Reads this XPUB's subscription messages until every one of `topics` has come, or two
    /// seconds pass; true once they all have. A publisher that waits for this before its first
    /// event knows the subscriber's filters are in place, so nothing it sends is dropped for
    /// arriving too early.
    func awaitSubscriptions(to topics: Set<String>) throws -> Bool {
        var missing = topics
        let deadline = Date().addingTimeInterval(2)
        while !missing.isEmpty, Date() < deadline {
            guard try ZMQPoller.isReadable(self, waitingMilliseconds: 20), let message = try receiveMessage(dontWait: true),
                let frame = message.first, frame.first == 1
            else { continue }
            missing.remove(String(decoding: frame.dropFirst(), as: UTF8.self))
        }
        return missing.isEmpty
    }
}
