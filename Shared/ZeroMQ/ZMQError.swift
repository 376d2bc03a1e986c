import CZeroMQ

/// A failed libzmq call: the errno libzmq reported, libzmq's own text for it, and which
/// operation failed.
///
/// "Would block" (`EAGAIN`) is deliberately *not* reported through this type by `send` and
/// `receiveMessage`: it is an ordinary outcome there and comes back as a value.
public struct ZMQError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The errno value (POSIX or libzmq-specific such as `ETERM`).
    public let errno: Int32
    /// `zmq_strerror(errno)`.
    public let message: String
    /// The call that failed, with its argument where that helps, e.g. `zmq_bind(tcp://...)`.
    public let operation: String

    public init(errno: Int32, operation: String) {
        self.errno = errno
        self.message = String(cString: zmq_strerror(errno))
        self.operation = operation
    }

    /// The context was shut down or terminated; the socket must be closed now.
    public var isContextTerminated: Bool { errno == ETERM }

    public var description: String {
        "\(operation) failed: \(message) (errno \(errno))"
    }

    /// Captures `zmq_errno()` right after a failed call.
    static func last(_ operation: @autoclosure () -> String) -> ZMQError {
        let code = zmq_errno()  // read first: building the operation string must not clobber it
        return ZMQError(errno: code, operation: operation())
    }
}
