import CZeroMQ
import Foundation

// Messages are multipart: a message is `[Data]`, one element per frame, always sent and
// received whole. "Would block" is an ordinary outcome here and comes back as a value
// (false / nil), never as an error.
extension ZMQSocket {
    /// Sends `frames` as one multipart message (`ZMQ_SNDMORE` on all but the last).
    ///
    /// Returns false, and queues nothing, when the message cannot be queued now: `EAGAIN`
    /// with `dontWait`, or the send timeout expired. `EINTR` is retried. Other failures throw,
    /// e.g. `ETERM` after a context shutdown or `EHOSTUNREACH` from a mandatory ROUTER.
    ///
    /// Only the first frame can be refused for lack of room: once libzmq accepts it, the
    /// remaining frames of the message always go to the same peer queue (high-water marks
    /// count whole messages), and the peer gets all of them or none. Should a later frame
    /// fail anyway, the message is half-sent and this throws rather than return false, because
    /// sending again would corrupt the next message.
    @discardableResult
    public func send(_ frames: [Data], dontWait: Bool = false) throws(ZMQError) -> Bool {
        let socket = try liveHandle("zmq_send")
        guard !frames.isEmpty else {
            throw ZMQError(errno: EINVAL, operation: "zmq_send(no frames)")
        }
        let baseFlags = dontWait ? ZMQ_DONTWAIT : 0
        for (index, frame) in frames.enumerated() {
            let isLast = index == frames.count - 1
            let flags = baseFlags | (isLast ? 0 : ZMQ_SNDMORE)
            while true {
                let rc = frame.withUnsafeBytes { zmq_send(socket, $0.baseAddress, $0.count, flags) }
                if rc >= 0 { break }
                let code = zmq_errno()
                if code == EINTR { continue }
                if code == EAGAIN && index == 0 { return false }
                throw ZMQError(errno: code, operation: "zmq_send(frame \(index + 1) of \(frames.count))")
            }
        }
        return true
    }

    /// Sends a one-frame message. See ``send(_:dontWait:)-([Data],_)``.
    @discardableResult
    public func send(_ frame: Data, dontWait: Bool = false) throws(ZMQError) -> Bool {
        try send([frame], dontWait: dontWait)
    }

    /// Sends `text` as one UTF-8 frame. See ``send(_:dontWait:)-([Data],_)``.
    @discardableResult
    public func send(_ text: String, dontWait: Bool = false) throws(ZMQError) -> Bool {
        try send([Data(text.utf8)], dontWait: dontWait)
    }

    /// Receives one whole multipart message, a `Data` per frame, in order (empty frames
    /// included).
    ///
    /// Reads through `zmq_msg_t`, never a fixed buffer, so no frame is ever truncated.
    /// Returns nil when nothing arrived: `dontWait` with nothing queued, or the receive
    /// timeout expired. `EINTR` is retried. Other failures throw; after a context shutdown
    /// the error's ``ZMQError/isContextTerminated`` is true.
    public func receiveMessage(dontWait: Bool = false) throws(ZMQError) -> [Data]? {
        let socket = try liveHandle("zmq_msg_recv")
        // Heap-allocated so its address is stable: small frames live inside the zmq_msg_t.
        let message = UnsafeMutablePointer<zmq_msg_t>.allocate(capacity: 1)
        defer { message.deallocate() }
        let flags = dontWait ? ZMQ_DONTWAIT : 0

        var frames: [Data] = []
        while true {
            zmq_msg_init(message)  // cannot fail
            defer { zmq_msg_close(message) }
            if zmq_msg_recv(message, socket, flags) < 0 {
                let code = zmq_errno()
                if code == EINTR { continue }
                // Later frames are already queued (multipart delivery is atomic), so only the
                // first one can meet an empty queue.
                if code == EAGAIN && frames.isEmpty { return nil }
                throw ZMQError(errno: code, operation: "zmq_msg_recv(frame \(frames.count + 1))")
            }
            let size = zmq_msg_size(message)
            if size == 0 {
                frames.append(Data())
            } else {
                frames.append(Data(bytes: zmq_msg_data(message), count: size))
            }
            if zmq_msg_more(message) == 0 { return frames }
        }
    }
}
