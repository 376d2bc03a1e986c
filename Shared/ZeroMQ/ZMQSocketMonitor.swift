import CZeroMQ
import Foundation

/// Events of a socket's connections that libzmq reports to a monitor (`ZMQ_EVENT_*`): a set to
/// watch in ``ZMQSocket/monitor(_:at:)``, and in a ``ZMQSocketEvent`` the one that happened.
public struct ZMQSocketEvents: OptionSet, Sendable, Hashable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// `ZMQ_EVENT_CLOSED`: a listener's (or connecter's) descriptor was closed, as after
    /// ``ZMQSocket/unbind(_:)``; the value is the descriptor.
    public static let closed = ZMQSocketEvents(rawValue: UInt16(ZMQ_EVENT_CLOSED))
    /// `ZMQ_EVENT_DISCONNECTED`: an established connection ended; the value is its descriptor.
    public static let disconnected = ZMQSocketEvents(rawValue: UInt16(ZMQ_EVENT_DISCONNECTED))
    /// `ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL`: the connection ended or timed out during the
    /// handshake with nothing more known; the value is the `errno` of the failure.
    public static let handshakeFailedNoDetail = ZMQSocketEvents(rawValue: UInt16(ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL))
    /// `ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL`: the peer broke the handshake — another security
    /// mechanism, a key that does not fit, a malformed command; the value is a
    /// `ZMQ_PROTOCOL_ERROR_*` code (``ZMQSocketEvent/isMechanismMismatch``).
    public static let handshakeFailedProtocol = ZMQSocketEvents(rawValue: UInt16(ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL))
}

/// One event a socket monitor reported: a message of two frames, the event and its value
/// (a `uint16` and a `uint32` in native byte order), then the endpoint it concerns.
public struct ZMQSocketEvent: Sendable, Equatable {
    public let event: ZMQSocketEvents
    /// What the event carries: a descriptor, an `errno` or a `ZMQ_PROTOCOL_ERROR_*` code.
    public let value: UInt32
    /// The endpoint of the connection: for a socket that binds, the address it listens on —
    /// libzmq 4.3's monitor does not say who the peer was.
    public let endpoint: String

    /// The event a monitor's message carries; nil for frames that are not one.
    public init?(frames: [Data]) {
        guard frames.count == 2, frames[0].count == 6 else { return nil }
        let header = Data(frames[0])  // indices from 0, whatever slice the frame came as
        event = ZMQSocketEvents(rawValue: header.withUnsafeBytes { $0.loadUnaligned(as: UInt16.self) })
        value = header.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 2, as: UInt32.self) }
        endpoint = String(decoding: frames[1], as: UTF8.self)
    }

    /// Whether a ``ZMQSocketEvents/handshakeFailedProtocol`` was the peer offering another
    /// security mechanism than the socket's (`ZMQ_PROTOCOL_ERROR_ZMTP_MECHANISM_MISMATCH`): a
    /// client without CURVE (NULL or PLAIN) at a CURVE server.
    public var isMechanismMismatch: Bool {
        event == .handshakeFailedProtocol && value == UInt32(ZMQ_PROTOCOL_ERROR_ZMTP_MECHANISM_MISMATCH)
    }
}

extension ZMQSocket {
    /// `zmq_socket_monitor`: libzmq reports this socket's `events` on a PAIR socket it binds at
    /// `address` (an `inproc://` endpoint of this socket's context), each message one
    /// ``ZMQSocketEvent``; connect a ``ZMQSocketType/pair`` there to read them. The monitor
    /// drops events while its reader falls behind, and stops when this socket closes.
    public func monitor(_ events: ZMQSocketEvents, at address: String) throws(ZMQError) {
        let socket = try liveHandle("zmq_socket_monitor(\(address))")
        if zmq_socket_monitor(socket, address, Int32(events.rawValue)) != 0 {
            throw ZMQError.last("zmq_socket_monitor(\(address))")
        }
    }
}
