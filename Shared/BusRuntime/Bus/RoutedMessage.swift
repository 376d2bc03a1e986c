import Foundation
import WidgetBusProtocol

/// A message as a ROUTER socket receives it: the routing frames to echo back, then the payload.
///
/// REQ peers send `[identity, "", payload]` and DEALER peers `[identity, payload]`; the route is
/// everything up to and including the first empty frame, or the identity alone.
public struct RoutedMessage {
    public let route: [Data]
    /// The payload frames; a valid request has exactly one.
    public let payloadFrames: [Data]
    /// Where the request is counted by type once it is decoded; nil off a bus.
    let metrics: RequestMetrics?

    public init(frames: [Data]) {
        self.init(frames: frames, metrics: nil)
    }

    init(frames: [Data], metrics: RequestMetrics?) {
        self.metrics = metrics
        if let delimiter = frames.firstIndex(where: \.isEmpty) {
            route = Array(frames[...delimiter])
            payloadFrames = Array(frames[(delimiter + 1)...])
        } else {
            route = Array(frames.prefix(1))
            payloadFrames = Array(frames.dropFirst())
        }
    }

    /// The single payload frame, or nil when the peer sent none or several.
    public var payload: Data? {
        payloadFrames.count == 1 ? payloadFrames[0] : nil
    }

    /// The frames that deliver `reply` to the sender.
    public func reply(_ reply: Data) -> [Data] {
        route + [reply]
    }
}

/// A request a service answers with an error instead of handling it; `reply` is that answer.
public struct RefusedRequest: Error {
    public let reply: Data
}

extension RoutedMessage {
    /// The first step of every request endpoint: the request this message carries, decoded by
    /// `decode` (`Request.decode`, `MetricsRequest.decode`), or the error reply that answers it
    /// instead — `bad_frames` when it is not exactly one payload frame, else the decoding
    /// error's code, naming the request when its id is readable.
    /// Each request is counted by its type on the bus's metrics, or as undecodable.
    public func request<Decoded: DecodedRequest>(
        codec: WireCodec, _ decode: (Data, WireCodec) throws(ProtocolError) -> Decoded
    ) -> Result<Decoded, RefusedRequest> {
        guard let payload else {
            metrics?.received(nil)
            return .failure(RefusedRequest(reply: codec.errorReply(
                to: nil, user: nil, code: .badFrames, message: "expected exactly one payload frame, got \(payloadFrames.count)")))
        }
        do throws(ProtocolError) {
            let request = try decode(payload, codec)
            metrics?.received(request.type)
            return .success(request)
        } catch {
            metrics?.received(nil)
            return .failure(RefusedRequest(reply: codec.errorReply(toUndecodable: payload, error)))
        }
    }
}

extension RoutedMessage {
    /// The answer to the request this message carries: `handle`'s for a request that decodes as
    /// `Incoming`; for one that does not, its refusal (``request(codec:_:)``); for one whose
    /// `handle` throws, `internal_error`. `reply` wraps an error reply as the caller's answer.
    public func answer<Incoming: DecodedRequest, Answer>(
        as _: Incoming.Type, codec: WireCodec, reply: (Data) -> Answer, _ handle: (Incoming) throws -> Answer
    ) -> Answer {
        switch request(codec: codec, Incoming.decode) {
        case .failure(let refused):
            return reply(refused.reply)
        case .success(let request):
            do {
                return try handle(request)
            } catch {
                return reply(codec.errorReply(to: request.id, user: request.user, code: .internalError, message: "\(error)"))
            }
        }
    }
}
