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

/// What ``ZMQPoller`` can wait on: a libzmq socket, or a plain file descriptor (a pipe another
/// thread writes to when it hands the polling thread work).
public enum ZMQPollTarget {
    case socket(ZMQSocket)
    case fileDescriptor(Int32)
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
        try poll(targets: sockets.map { (.socket($0.socket), $0.events) }, timeoutMilliseconds: timeoutMilliseconds)
    }

    /// Whether `socket` has a message to receive, waiting up to `waitingMilliseconds` for one:
    /// the wait of a client that has one socket to read.
    public static func isReadable(_ socket: ZMQSocket, waitingMilliseconds: Int) throws(ZMQError) -> Bool {
        try poll([(socket, .readable)], timeoutMilliseconds: waitingMilliseconds).allSatisfy { $0.contains(.readable) }
    }

    /// ``poll(_:timeoutMilliseconds:)`` over sockets and file descriptors alike.
    public static func poll(
        targets: [(target: ZMQPollTarget, events: ZMQPollEvents)],
        timeoutMilliseconds: Int
    ) throws(ZMQError) -> [ZMQPollEvents] {
        var items: [zmq_pollitem_t] = []
        items.reserveCapacity(targets.count)
        for entry in targets {
            switch entry.target {
            case .socket(let socket):
                items.append(zmq_pollitem_t(socket: try socket.liveHandle("zmq_poll"), fd: -1, events: entry.events.rawValue, revents: 0))
            case .fileDescriptor(let descriptor):
                items.append(zmq_pollitem_t(socket: nil, fd: descriptor, events: entry.events.rawValue, revents: 0))
            }
        }
        let rc = withExtendedLifetime(targets) {
            zmq_poll(&items, Int32(items.count), timeoutMilliseconds)
        }
        if rc < 0 {
            let code = zmq_errno()
            if code == EINTR { return Array(repeating: [], count: targets.count) }
            throw ZMQError(errno: code, operation: "zmq_poll")
        }
        return items.map { ZMQPollEvents(rawValue: $0.revents) }
    }
}
