import Foundation
import WidgetBusProtocol
import ZeroMQ

/// A bare ZeroMQ client that sends whatever frames a test gives it, as a careless or hostile
/// client would. It speaks DEALER with an empty delimiter, which a ROUTER sees like a REQ peer.
final class RawClient {
    private let context: ZMQContext
    private let socket: ZMQSocket
    private let codec = WireCodec()

    init(endpoint: String) throws {
        context = try ZMQContext()
        socket = try ZMQSocket(context: context, type: .dealer)
        try socket.setLinger(milliseconds: 0)
        try socket.setReceiveTimeout(milliseconds: 5_000)
        try socket.connect(endpoint)
    }

    deinit {
        socket.close()
        context.terminate()
    }

    /// Sends `frames` after the empty delimiter and returns the reply's payload frames.
    func exchange(_ frames: [Data]) throws -> [Data]? {
        try send(frames)
        return try receive()
    }

    /// Sends `frames` after the empty delimiter, for a reply taken later by ``receive()``.
    func send(_ frames: [Data]) throws {
        try socket.send([Data()] + frames)
    }

    /// The payload frames of the next reply; nil after 5 s without one.
    func receive() throws -> [Data]? {
        guard let reply = try socket.receiveMessage() else { return nil }
        return Array(reply.drop { $0.isEmpty })
    }

    /// Sends one payload and decodes the error reply it must get.
    func errorReply(to payload: Data) throws -> Envelope<ErrorBody>? {
        try exchange([payload]).flatMap { try? codec.decode(Envelope<ErrorBody>.self, from: $0[0]) }
    }

    func errorReply(toJSON json: String) throws -> Envelope<ErrorBody>? {
        try errorReply(to: Data(json.utf8))
    }

    /// A well-formed envelope with `body`, as JSON text.
    static func envelope(type: String, user: String? = "mallory", id: String = UUID().uuidString, body: String) -> String {
        let userField = user.map { #""user":"\#($0)","# } ?? ""
        return #"{"version":1,"id":"\#(id)","type":"\#(type)",\#(userField)"sentAt":"2026-11-22T10:00:00.000Z","body":\#(body)}"#
    }
}
