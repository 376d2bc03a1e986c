import Foundation

/// A message as a ROUTER socket receives it: the routing frames to echo back, then the payload.
///
/// REQ peers send `[identity, "", payload]` and DEALER peers `[identity, payload]`; the route is
/// everything up to and including the first empty frame, or the identity alone.
public struct RoutedMessage {
    public let route: [Data]
    /// The payload frames; a valid request has exactly one.
    public let payloadFrames: [Data]

    public init(frames: [Data]) {
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
