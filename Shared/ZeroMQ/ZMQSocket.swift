import CZeroMQ

/// A libzmq socket.
///
/// Deliberately not `Sendable`: libzmq sockets are not thread-safe, so a socket belongs to
/// the one thread that created it, which runs its loop there (never as blocking work on the
/// Swift concurrency pool). To stop such a thread from outside, call
/// ``ZMQContext/shutdown()``: its blocking calls then fail with `ETERM`.
///
/// Closes itself in `deinit` if not closed: `zmq_close` never blocks (only terminating the
/// context waits for linger). Set the linger explicitly with ``setLinger(milliseconds:)``;
/// libzmq's default of "forever" makes ``ZMQContext/terminate()`` wait for unsent messages.
public final class ZMQSocket {
    public let type: ZMQSocketType
    /// Retained so the context object outlives its sockets.
    private let context: ZMQContext
    /// nil once closed; every call after `close()` throws `ENOTSOCK`.
    private var handle: UnsafeMutableRawPointer?

    public init(context: ZMQContext, type: ZMQSocketType) throws(ZMQError) {
        self.handle = try context.makeSocket(type)
        self.context = context
        self.type = type
    }

    deinit {
        close()
    }

    /// The live libzmq socket, or `ENOTSOCK` if this socket was closed.
    func liveHandle(_ operation: @autoclosure () -> String) throws(ZMQError) -> UnsafeMutableRawPointer {
        guard let handle else {
            throw ZMQError(errno: ENOTSOCK, operation: operation())
        }
        return handle
    }

    /// Accepts connections on `endpoint`, e.g. `tcp://127.0.0.1:5555`, `tcp://127.0.0.1:*`
    /// (an ephemeral port; read it back from ``lastEndpoint``) or `inproc://name`.
    public func bind(_ endpoint: String) throws(ZMQError) {
        let socket = try liveHandle("zmq_bind(\(endpoint))")
        if zmq_bind(socket, endpoint) != 0 {
            throw ZMQError.last("zmq_bind(\(endpoint))")
        }
    }

    /// Stops accepting connections on `endpoint`, exactly as bound or as ``lastEndpoint`` reads
    /// it after a wildcard bind, and drops every connection accepted there: libzmq ends the
    /// sessions a listener accepted with the listener. Asynchronous: the I/O thread closes the
    /// listener a moment later, and a monitor's ``ZMQSocketEvents/closed`` says when. Binding the
    /// same address before then fails with `EADDRINUSE` (TCP), or is undone by the old listener
    /// removing its file (`ipc://`).
    public func unbind(_ endpoint: String) throws(ZMQError) {
        let socket = try liveHandle("zmq_unbind(\(endpoint))")
        if zmq_unbind(socket, endpoint) != 0 {
            throw ZMQError.last("zmq_unbind(\(endpoint))")
        }
    }

    /// Connects to `endpoint`. Completes asynchronously: libzmq keeps reconnecting in the
    /// background, so an absent peer is not an error.
    public func connect(_ endpoint: String) throws(ZMQError) {
        let socket = try liveHandle("zmq_connect(\(endpoint))")
        if zmq_connect(socket, endpoint) != 0 {
            throw ZMQError.last("zmq_connect(\(endpoint))")
        }
    }

    /// Undoes a ``connect(_:)`` to exactly this endpoint string.
    public func disconnect(_ endpoint: String) throws(ZMQError) {
        let socket = try liveHandle("zmq_disconnect(\(endpoint))")
        if zmq_disconnect(socket, endpoint) != 0 {
            throw ZMQError.last("zmq_disconnect(\(endpoint))")
        }
    }

    /// `zmq_close`. Unsent messages are kept for the linger period, and
    /// ``ZMQContext/terminate()`` waits for them. Idempotent.
    public func close() {
        guard let handle else { return }
        self.handle = nil
        zmq_close(handle)
    }
}

/// A socket must stay on the thread that created it.
@available(*, unavailable)
extension ZMQSocket: Sendable {}
