import CZeroMQ

/// The libzmq socket patterns this project uses. XPUB is a PUB that also receives its
/// subscribers' subscriptions (`\u{1}` then the topic, `\u{0}` for an unsubscription), so its
/// owner can tell when a subscriber's filter is in place instead of guessing.
public enum ZMQSocketType: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case req, rep, dealer, router, pub, xpub, sub, push, pull, pair

    /// The `ZMQ_*` constant passed to `zmq_socket`.
    var rawType: Int32 {
        switch self {
        case .req: ZMQ_REQ
        case .rep: ZMQ_REP
        case .dealer: ZMQ_DEALER
        case .router: ZMQ_ROUTER
        case .pub: ZMQ_PUB
        case .xpub: ZMQ_XPUB
        case .sub: ZMQ_SUB
        case .push: ZMQ_PUSH
        case .pull: ZMQ_PULL
        case .pair: ZMQ_PAIR
        }
    }

    public var description: String {
        switch self {
        case .req: "REQ"
        case .rep: "REP"
        case .dealer: "DEALER"
        case .router: "ROUTER"
        case .pub: "PUB"
        case .xpub: "XPUB"
        case .sub: "SUB"
        case .push: "PUSH"
        case .pull: "PULL"
        case .pair: "PAIR"
        }
    }
}
