import CZeroMQ

/// Events to wait for, and the events found ready, in ``ZMQPoller/poll(_:timeoutMilliseconds:)``.
public struct ZMQPollEvents: OptionSet, Sendable, Hashable {
    public let rawValue: Int16
    public init(rawValue: Int16) { self.rawValue = rawValue }

    /// `ZMQ_POLLIN`: at least one whole message can be received without blocking.
    public static let readable = ZMQPollEvents(rawValue: Int16(ZMQ_POLLIN))
    /// `ZMQ_POLLOUT`: at least one message can be sent without blocking.
    public static let writable = ZMQPollEvents(rawValue: Int16(ZMQ_POLLOUT))
    /// `ZMQ_POLLERR`: only meaningful for plain file descriptors; libzmq sockets never set it.
    public static let error = ZMQPollEvents(rawValue: Int16(ZMQ_POLLERR))
}

/// Waits on several sockets at once, e.g. a service's request socket and a control socket.
///
/// All the sockets must belong to the calling thread, and `poll` blocks that thread, so it
/// belongs on a dedicated service thread, not on the Swift concurrency pool.
public enum ZMQPoller {
    /// Returns the ready events for each socket, in the same order as `sockets` (an empty
    /// set for a socket that is not ready).
    ///
    /// - Parameter timeoutMilliseconds: -1 waits forever, 0 does not wait.
    /// - Returns: all-empty on timeout, and also when a signal interrupted the wait (`EINTR`),
    ///   so callers simply loop.
    /// - Throws: `ETERM` after the context shuts down, `ENOTSOCK` for a closed socket.
    public static func poll(
        _ sockets: [(socket: ZMQSocket, events: ZMQPollEvents)],
        timeoutMilliseconds: Int
    ) throws(ZMQError) -> [ZMQPollEvents] {
        var items: [zmq_pollitem_t] = []
        items.reserveCapacity(sockets.count)
        for entry in sockets {
            let handle = try entry.socket.liveHandle("zmq_poll")
            items.append(zmq_pollitem_t(socket: handle, fd: -1, events: entry.events.rawValue, revents: 0))
        }
        let rc = withExtendedLifetime(sockets) {
            zmq_poll(&items, Int32(items.count), timeoutMilliseconds)
        }
        if rc < 0 {
            let code = zmq_errno()
            if code == EINTR { return Array(repeating: [], count: sockets.count) }
            throw ZMQError(errno: code, operation: "zmq_poll")
        }
        return items.map { ZMQPollEvents(rawValue: $0.revents) }
    }
}
