import BusRuntime
import Foundation
import ZeroMQ

extension Bus {
    /// Runs turns, moving `clock` by `step` before each (so timers fall due without waiting),
    /// until `condition` holds; false if it still does not after `limit` turns.
    public func turns(moving clock: ManualClock, by step: TimeInterval, limit: Int = 200, until condition: () throws -> Bool) throws -> Bool {
        for _ in 0..<limit {
            if try condition() { return true }
            clock.advance(by: step)
            try turn(waitingAtMost: 0.02)
        }
        return try condition()
    }
}

extension ZMQSocket {
    /// Reads this XPUB's subscription messages until every one of `topics` has come, or two
    /// seconds pass; true once they all have. A publisher that waits for this before its first
    /// event knows the subscriber's filters are in place, so nothing it sends is dropped for
    /// arriving too early.
    public func awaitSubscriptions(to topics: Set<String>) throws -> Bool {
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

    /// A socket of `type` on `context`, bound at `endpoint` and lingering 0: a test's stand-in for
    /// the service a service under test follows or answers.
    public static func peer(_ type: ZMQSocketType, on context: ZMQContext, binding endpoint: String) throws -> ZMQSocket {
        let socket = try ZMQSocket(context: context, type: type)
        try socket.setLinger(milliseconds: 0)
        try socket.bind(endpoint)
        return socket
    }
}
