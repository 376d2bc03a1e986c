import Foundation
import WidgetBusProtocol

extension WireCodec {
    /// Encodes a reply envelope answering `requestID`.
    public func reply(
        to requestID: String?, user: String?, type: MessageType, body: some Encodable & Sendable, now: Date = Date()
    ) throws -> Data {
        try encode(Envelope(type: type.rawValue, user: user, sentAt: now, inReplyTo: requestID, body: body))
    }

    /// Encodes an `Error` reply. Never throws: an error reply must always be sendable.
    /// Every error reply is counted by its code (``ErrorReplyMetrics``).
    public func errorReply(to requestID: String?, user: String?, code: ErrorCode, message: String, redirect: ShardRedirect? = nil) -> Data {
        ErrorReplyMetrics.count(code)
        let body = ErrorBody(code: code, message: message, redirect: redirect)
        return (try? reply(to: requestID, user: user, type: .error, body: body))
            ?? Data(#"{"type":"Error","version":1,"body":{"code":"internal","message":"unencodable error"}}"#.utf8)
    }

    /// The `unknown_type` reply to a request of a type this endpoint does not serve; `server`
    /// names what does not serve it ("by timeline-service", "on this endpoint").
    public func notServedReply(to request: some DecodedRequest, _ server: String) -> Data {
        errorReply(to: request.id, user: request.user, code: .unknownType, message: "\(request.type.rawValue) is not served \(server)")
    }

    /// The `wrong_shard` reply to a request for a user whose slot another shard owns.
    public func wrongShardReply(to request: some DecodedRequest, user: String, _ redirect: ShardRedirect) -> Data {
        let message =
            if let shard = redirect.shard {
                "\(user) is in slot \(redirect.slot), owned by shard \(shard)\(redirect.endpoint.map { " at \($0)" } ?? ""): send it there"
            } else {
                "\(user) is in slot \(redirect.slot), which is moving between shards: send it again shortly"
            }
        return errorReply(to: request.id, user: user, code: .wrongShard, message: message, redirect: redirect)
    }

    /// The error reply to a payload that failed to decode: it names the request it answers when
    /// the payload has a readable id, and echoes the user only if it is a valid one.
    public func errorReply(toUndecodable payload: Data, _ error: ProtocolError) -> Data {
        let header = payload.count <= ProtocolLimits.maxPayloadBytes ? try? decode(EnvelopeHeader.self, from: payload) : nil
        let user = header?.user.flatMap { (try? ProtocolLimits.validateUser($0)) == nil ? nil : $0 }
        let id = header?.id.flatMap { (try? ProtocolLimits.validateMessageID($0)) == nil ? nil : $0 }
        return errorReply(to: id, user: user, code: error.code, message: error.message)
    }
}

/// A reply as a client sees it: the expected body, or the server's error.
public enum ReplyDecoding {
    public static func decode<Body: Decodable & Sendable>(
        _ payload: Data, as body: Body.Type, codec: WireCodec
    ) throws -> Result<Envelope<Body>, ErrorBody> {
        let header = try codec.decode(EnvelopeHeader.self, from: payload)
        if header.type == MessageType.error.rawValue {
            return .failure(try codec.decode(Envelope<ErrorBody>.self, from: payload).body)
        }
        return .success(try codec.decode(Envelope<Body>.self, from: payload))
    }
}

extension ReplyDecoding {
    /// The redirect of a `wrong_shard` reply; nil for any other reply. Reads the error body only
    /// when the reply is one.
    public static func wrongShardRedirect(in payload: Data, codec: WireCodec) -> ShardRedirect? {
        let reply = JSONFieldScanner(payload)
        guard reply.string("type") == MessageType.error.rawValue, reply.object("body")?.string("code") == ErrorCode.wrongShard.rawValue
        else { return nil }
        return (try? codec.decode(Envelope<ErrorBody>.self, from: payload))?.body.redirect
    }
}
