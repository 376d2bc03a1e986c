import CZeroMQ
import Foundation

// Socket options: each a thin zmq_setsockopt / zmq_getsockopt. Times are in milliseconds,
// -1 meaning infinite.
extension ZMQSocket {
    /// `ZMQ_LINGER`: how long unsent messages are kept after `close()`; 0 drops them at once.
    public func setLinger(milliseconds: Int32) throws(ZMQError) {
        try setOption(ZMQ_LINGER, milliseconds, name: "ZMQ_LINGER")
    }

    /// `ZMQ_SNDHWM`: outgoing messages queued per peer before sends block (or PUB drops).
    public func setSendHighWaterMark(_ messages: Int32) throws(ZMQError) {
        try setOption(ZMQ_SNDHWM, messages, name: "ZMQ_SNDHWM")
    }

    /// `ZMQ_RCVHWM`: incoming messages queued per peer before libzmq stops reading.
    public func setReceiveHighWaterMark(_ messages: Int32) throws(ZMQError) {
        try setOption(ZMQ_RCVHWM, messages, name: "ZMQ_RCVHWM")
    }

    /// `ZMQ_RCVTIMEO`: how long a blocking receive waits before returning nil.
    public func setReceiveTimeout(milliseconds: Int32) throws(ZMQError) {
        try setOption(ZMQ_RCVTIMEO, milliseconds, name: "ZMQ_RCVTIMEO")
    }

    /// `ZMQ_SNDTIMEO`: how long a blocking send waits before returning false.
    public func setSendTimeout(milliseconds: Int32) throws(ZMQError) {
        try setOption(ZMQ_SNDTIMEO, milliseconds, name: "ZMQ_SNDTIMEO")
    }

    /// `ZMQ_MAXMSGSIZE`: a peer sending a larger frame is disconnected and the frame never
    /// delivered; -1 means no limit. Enforced by the wire decoder, so not on `inproc://`.
    public func setMaxMessageSize(bytes: Int64) throws(ZMQError) {
        try setOption(ZMQ_MAXMSGSIZE, bytes, name: "ZMQ_MAXMSGSIZE")
    }

    /// `ZMQ_SUBSCRIBE` (SUB): receive messages whose first frame starts with `prefix`;
    /// `""` subscribes to everything. A SUB receives nothing until it subscribes.
    public func subscribe(_ prefix: String) throws(ZMQError) {
        try subscribe(Data(prefix.utf8))
    }

    /// `ZMQ_SUBSCRIBE` with a binary prefix.
    public func subscribe(_ prefix: Data) throws(ZMQError) {
        try setOption(ZMQ_SUBSCRIBE, prefix, name: "ZMQ_SUBSCRIBE")
    }

    /// `ZMQ_UNSUBSCRIBE`: removes one earlier ``subscribe(_:)-(String)`` of the same prefix.
    public func unsubscribe(_ prefix: String) throws(ZMQError) {
        try unsubscribe(Data(prefix.utf8))
    }

    /// `ZMQ_UNSUBSCRIBE` with a binary prefix.
    public func unsubscribe(_ prefix: Data) throws(ZMQError) {
        try setOption(ZMQ_UNSUBSCRIBE, prefix, name: "ZMQ_UNSUBSCRIBE")
    }

    /// `ZMQ_ROUTING_ID`: the identity a ROUTER peer sees in the first frame (1...255 bytes,
    /// not starting with a zero byte). Set before `connect`.
    public func setRoutingID(_ id: Data) throws(ZMQError) {
        try setOption(ZMQ_ROUTING_ID, id, name: "ZMQ_ROUTING_ID")
    }

    /// `ZMQ_ROUTER_MANDATORY` (ROUTER): sending to an unknown routing id fails with
    /// `EHOSTUNREACH` instead of being dropped silently.
    public func setRouterMandatory(_ on: Bool) throws(ZMQError) {
        try setOption(ZMQ_ROUTER_MANDATORY, Int32(on ? 1 : 0), name: "ZMQ_ROUTER_MANDATORY")
    }

    /// `ZMQ_IMMEDIATE`: queue messages only to completed connections, so a send with no
    /// connected peer blocks (or returns false) instead of filling a queue nobody reads.
    public func setImmediate(_ on: Bool) throws(ZMQError) {
        try setOption(ZMQ_IMMEDIATE, Int32(on ? 1 : 0), name: "ZMQ_IMMEDIATE")
    }

    /// `ZMQ_IPV6`: allow IPv6 addresses (and dual-stack binds) on TCP endpoints.
    public func setIPv6(_ on: Bool) throws(ZMQError) {
        try setOption(ZMQ_IPV6, Int32(on ? 1 : 0), name: "ZMQ_IPV6")
    }

    /// `ZMQ_LAST_ENDPOINT`: the endpoint last bound or connected, with a wildcard port
    /// resolved, e.g. `tcp://127.0.0.1:41234` after `bind("tcp://127.0.0.1:*")`.
    public var lastEndpoint: String {
        get throws(ZMQError) {
            let socket = try liveHandle("zmq_getsockopt(ZMQ_LAST_ENDPOINT)")
            // Longer than any TCP endpoint and than an ipc:// path (sun_path is 108 bytes).
            var buffer = [CChar](repeating: 0, count: 1024)
            var size = buffer.count
            if zmq_getsockopt(socket, ZMQ_LAST_ENDPOINT, &buffer, &size) != 0 {
                throw ZMQError.last("zmq_getsockopt(ZMQ_LAST_ENDPOINT)")
            }
            // libzmq writes a NUL-terminated string; size includes the terminator.
            let bytes = buffer.prefix(max(0, size - 1)).map { UInt8(bitPattern: $0) }
            return String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    /// `ZMQ_FD`: a descriptor that becomes readable when the socket's events *may* have
    /// changed (edge-triggered). For callers that drive the socket from their own event loop;
    /// check ``ZMQPoller`` with timeout 0 (or `ZMQ_EVENTS`) after each wake-up.
    public var fileDescriptor: Int32 {
        get throws(ZMQError) {
            try intOption(ZMQ_FD, name: "ZMQ_FD")
        }
    }

    /// `ZMQ_RCVMORE`: whether the frame last received is followed by more of its message.
    /// ``receiveMessage(dontWait:)`` always reads whole messages, so after it this is false.
    public var hasMoreFrames: Bool {
        get throws(ZMQError) {
            try intOption(ZMQ_RCVMORE, name: "ZMQ_RCVMORE") != 0
        }
    }

    // MARK: - Primitives

    func setOption<Value: FixedWidthInteger>(_ option: Int32, _ value: Value, name: String) throws(ZMQError) {
        let socket = try liveHandle("zmq_setsockopt(\(name))")
        var value = value
        let rc = withUnsafeBytes(of: &value) { zmq_setsockopt(socket, option, $0.baseAddress, $0.count) }
        if rc != 0 {
            throw ZMQError.last("zmq_setsockopt(\(name), \(value))")
        }
    }

    func setOption(_ option: Int32, _ value: Data, name: String) throws(ZMQError) {
        let socket = try liveHandle("zmq_setsockopt(\(name))")
        let rc = value.withUnsafeBytes { zmq_setsockopt(socket, option, $0.baseAddress, $0.count) }
        if rc != 0 {
            throw ZMQError.last("zmq_setsockopt(\(name))")
        }
    }

    func intOption(_ option: Int32, name: String) throws(ZMQError) -> Int32 {
        let socket = try liveHandle("zmq_getsockopt(\(name))")
        var value: Int32 = 0
        var size = MemoryLayout<Int32>.size
        if zmq_getsockopt(socket, option, &value, &size) != 0 {
            throw ZMQError.last("zmq_getsockopt(\(name))")
        }
        return value
    }
}
