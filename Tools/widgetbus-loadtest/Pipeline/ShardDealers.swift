import BusRuntime
import Foundation
import ServiceSupport
import WidgetBusProtocol
import ZeroMQ

#if canImport(Glibc)
import Glibc
#endif

/// The load generator's DEALERs to intent-handler: one to the configured endpoint, and one to
/// each shard a `wrong_shard` reply names (docs/SCALING.md), each user's requests going where
/// the ``ShardMap`` says. A request answered `wrong_shard` is sent again, with its id, to the
/// owner — or, while its slot moves between shards, to the same place after ``movingPause`` —
/// and only its final reply is handed on. Used on one thread.
final class ShardDealers {
    private struct Dealer {
        var socket: ZMQSocket
        var descriptor: Int32
    }

    static let movingPause: Duration = .milliseconds(250)

    private let context: ZMQContext
    private let security: BusSecurity.Settings?
    private let codec = WireCodec()
    private var shards: ShardMap
    private var dealers: [String: Dealer] = [:]
    /// What was sent for each request not answered yet, to send it again after a redirect, and
    /// how often it was redirected.
    private var sent: [String: (user: String, payload: Data, redirects: Int)] = [:]
    /// Redirects of one request followed at once; past them it waits ``movingPause`` before each
    /// (shards that disagree for longer are moving the slot, or are misconfigured).
    private static let immediateRedirects = 3
    private var paused: [(id: String, due: ContinuousClock.Instant)] = []
    /// Requests sent again after a `wrong_shard` reply.
    private(set) var redirects = 0

    init(context: ZMQContext, endpoint: String) throws {
        self.context = context
        security = try BusSecurity.Settings.ofThisProcess()
        shards = ShardMap(defaultEndpoint: endpoint)
        _ = try dealer(for: endpoint)
    }

    deinit {
        for dealer in dealers.values { dealer.socket.close() }
    }

    private func dealer(for endpoint: String) throws -> Dealer {
        if let dealer = dealers[endpoint] { return dealer }
        let socket = try ZMQSocket(context: context, type: .dealer)
        try socket.setLinger(milliseconds: 0)
        try socket.setSendHighWaterMark(0)  // open loop: queue rather than refuse when the server lags
        try socket.setReceiveHighWaterMark(0)
        try socket.setMaxMessageSize(bytes: ProtocolLimits.maxTransportBytes)
        try socket.connect(endpoint, security: security)
        let dealer = Dealer(socket: socket, descriptor: try socket.fileDescriptor)
        dealers[endpoint] = dealer
        return dealer
    }

    /// Sends `payload`, a request for `user` whose id is `id`.
    func send(id: String, user: String, payload: Data) throws {
        sent[id] = (user, payload, 0)
        try transmit(payload, for: user)
    }

    private func transmit(_ payload: Data, for user: String) throws {
        let endpoint = shards.endpoint(for: user)
        guard try dealer(for: endpoint).socket.send([Data(), payload], dontWait: true) else {
            throw LoadTestError("could not queue a request to \(endpoint) (send queue full)")
        }
    }

    /// The request `id` needs nothing more: answered, or given up.
    func forget(_ id: String) {
        sent[id] = nil
    }

    /// One final reply's payload, with its arrival time; nil when none is waiting.
    func receive() throws -> (payload: Data, at: ContinuousClock.Instant)? {
        for dealer in dealers.values {
            while let frames = try dealer.socket.receiveMessage(dontWait: true) {
                let at = ContinuousClock.now
                guard let payload = frames.last else { continue }
                if try !redirected(payload) { return (payload, at) }
            }
        }
        return nil
    }

    private static let wrongShard = Data(#""code":"wrong_shard""#.utf8)

    /// Sends the request a `wrong_shard` reply answers where it belongs; false for any other reply.
    private func redirected(_ payload: Data) throws -> Bool {
        guard payload.range(of: Self.wrongShard) != nil, let redirect = ReplyDecoding.wrongShardRedirect(in: payload, codec: codec),
            let id = JSONFieldScanner(payload).string("inReplyTo"), let request = sent[id]
        else { return false }
        redirects += 1
        sent[id]?.redirects += 1
        switch shards.learn(redirect) {
        case .to where request.redirects < Self.immediateRedirects: try transmit(request.payload, for: request.user)
        case .to, .afterPause: paused.append((id, .now + Self.movingPause))
        }
        return true
    }

    /// Waits until a reply is readable or `deadline` passes, with microsecond resolution (a
    /// millisecond poll would make an open-loop sender up to a millisecond late at every tick):
    /// the sockets' `ZMQ_FD`s under `select`, checked with zero-timeout polls before and after,
    /// as libzmq requires for those edge-triggered descriptors. Requests whose pause is over are
    /// sent again first.
    func waitForReplies(until deadline: ContinuousClock.Instant) throws -> Bool {
        try resendPaused()
        if try readable() { return true }
        let wakeUp = paused.map(\.due).min().map { min($0, deadline) } ?? deadline
        let remaining = wakeUp - .now
        guard remaining > .zero else { return false }
        let descriptors = dealers.values.map(\.descriptor)
        if descriptors.allSatisfy({ $0 >= 0 && $0 < 1024 }) {  // FD_SETSIZE
            var readable = fd_set()
            withUnsafeMutableBytes(of: &readable) { raw in
                let words = raw.bindMemory(to: Int.self)
                for descriptor in descriptors { words[Int(descriptor) / Int.bitWidth] |= 1 << (Int(descriptor) % Int.bitWidth) }
            }
            let (seconds, attoseconds) = remaining.components
            var wait = timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
            _ = select((descriptors.max() ?? 0) + 1, &readable, nil, nil, &wait)
        } else {
            _ = try ZMQPoller.poll(dealers.values.map { ($0.socket, .readable) }, timeoutMilliseconds: Int(remaining.asMilliseconds.rounded(.up)))
        }
        return try readable()
    }

    private func readable() throws -> Bool {
        try dealers.values.contains { try ZMQPoller.isReadable($0.socket, waitingMilliseconds: 0) }
    }

    private func resendPaused() throws {
        let now = ContinuousClock.now
        guard paused.contains(where: { $0.due <= now }) else { return }
        let due = paused.filter { $0.due <= now }
        paused.removeAll { $0.due <= now }
        for (id, _) in due {
            if let request = sent[id] { try transmit(request.payload, for: request.user) }
        }
    }
}
