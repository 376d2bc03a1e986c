import CZeroMQ
import Synchronization

/// A libzmq context: the I/O threads and the `inproc://` namespace shared by its sockets.
///
/// Thread-safe, as libzmq contexts are. It never terminates itself in `deinit`, because
/// `zmq_ctx_term` blocks until every socket is closed and would hang an innocent release;
/// the owner calls ``terminate()`` once its sockets are closed (or after ``shutdown()``).
public final class ZMQContext: @unchecked Sendable {
    /// The libzmq context; valid until `terminate()` frees it.
    private let handle: UnsafeMutableRawPointer
    /// Set once `terminate()` has started. Guards every use of `handle` so that nothing
    /// touches it after `zmq_ctx_term` has freed it.
    private let terminated = Mutex(false)

    /// - Parameter ioThreads: libzmq I/O threads (`ZMQ_IO_THREADS`); one is plenty below
    ///   roughly a gigabyte per second.
    public init(ioThreads: Int32 = 1) throws(ZMQError) {
        guard let handle = zmq_ctx_new() else {
            throw ZMQError.last("zmq_ctx_new")
        }
        if zmq_ctx_set(handle, ZMQ_IO_THREADS, ioThreads) != 0 {
            let error = ZMQError.last("zmq_ctx_set(ZMQ_IO_THREADS, \(ioThreads))")
            zmq_ctx_term(handle)
            throw error
        }
        self.handle = handle
    }

    /// `zmq_ctx_shutdown`: every blocking call on this context's sockets returns `ETERM`
    /// (see ``ZMQError/isContextTerminated``) and new ones fail at once. Does not block and
    /// is safe from any thread, which makes it the way to stop socket-owning threads.
    /// The sockets must still be closed, then the context terminated.
    public func shutdown() {
        terminated.withLock { isTerminated in
            // Under the lock so that terminate() cannot free the context meanwhile.
            if !isTerminated { zmq_ctx_shutdown(handle) }
        }
    }

    /// `zmq_ctx_term`. Blocks until every socket of this context is closed, and then until
    /// their pending messages are sent or their linger expires. Idempotent.
    public func terminate() {
        let first = terminated.withLock { isTerminated in
            defer { isTerminated = true }
            return !isTerminated
        }
        guard first else { return }
        // Outside the lock: this may block for as long as sockets stay open.
        while zmq_ctx_term(handle) != 0 && zmq_errno() == EINTR {}
    }

    /// The version of the libzmq that is actually loaded.
    public static var libraryVersion: (major: Int32, minor: Int32, patch: Int32) {
        var major: Int32 = 0
        var minor: Int32 = 0
        var patch: Int32 = 0
        zmq_version(&major, &minor, &patch)
        return (major, minor, patch)
    }

    /// `zmq_socket` on the live context; throws `ETERM` once `terminate()` has begun.
    func makeSocket(_ type: ZMQSocketType) throws(ZMQError) -> UnsafeMutableRawPointer {
        // nonisolated(unsafe): the pointer is only handed out of the lock's closure.
        nonisolated(unsafe) var socket: UnsafeMutableRawPointer?
        let failure: Int32? = terminated.withLock { isTerminated in
            guard !isTerminated else { return ETERM }
            // zmq_socket does not block, so it may run under the lock, which keeps
            // terminate() from freeing the context underneath it. errno is read here,
            // before unlocking can clobber it.
            socket = zmq_socket(handle, type.rawType)
            return socket == nil ? zmq_errno() : nil
        }
        guard let socket else {
            throw ZMQError(errno: failure ?? EINVAL, operation: "zmq_socket(\(type))")
        }
        return socket
    }
}
