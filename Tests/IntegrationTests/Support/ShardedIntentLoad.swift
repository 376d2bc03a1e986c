import BusRuntime
import Foundation
import ServiceSupport
import WidgetBusProtocol
import ZeroMQ

/// An open-loop load of `RecordTensionIntent`s over many users and intent-handler shards, sent as
/// a careful client does: each user's requests go where its ``ShardMap`` says; a `wrong_shard`
/// reply is followed; a request unanswered for a while is sent again, with its id, to the next
/// shard it knows of (its owner may be gone), waiting twice as long each time up to two seconds,
/// so that the requests piled up behind a dead shard do not swamp the one taking its users; an
/// `unavailable` or `internal` answer is sent again after a moment. A request counts as
/// acknowledged once a shard answered it with its state. Used on one thread.
final class ShardedIntentLoad {
    struct Outcome {
        /// Every request sent, by id, with its user.
        var sent: [String: String] = [:]
        /// The requests a shard acknowledged.
        var acknowledged: Set<String> = []
        /// Answered with another error than the ones resent.
        var refused: [String: String] = [:]
        /// The highest state version acknowledged to each user.
        var versions: [String: UInt64] = [:]
        /// When each acknowledgement came, and from which shard's endpoint.
        var acknowledgedAt: [String: (at: ContinuousClock.Instant, by: String)] = [:]
    }

    private struct Waiting {
        var user: String
        var payload: Data
        var resendAt: ContinuousClock.Instant
        var patience: Duration = .seconds(1)
    }

    private let context: ZMQContext
    private let endpoints: [String]
    private var shards: ShardMap
    private var dealers: [String: ZMQSocket] = [:]
    private var waiting: [String: Waiting] = [:]
    private var outcome = Outcome()
    private let codec = WireCodec()

    /// - Parameter endpoints: the shards' intents endpoints; requests go to the first until
    ///   redirected.
    init(endpoints: [String]) throws {
        context = try ZMQContext()
        self.endpoints = endpoints
        shards = ShardMap(defaultEndpoint: endpoints[0])
    }

    deinit {
        for dealer in dealers.values { dealer.close() }
        context.terminate()
    }

    /// Sends `rate` intents a second for `duration` over `users`, running each of `events` once its
    /// time from the start has come, then waits up to `drain` for the requests still unanswered.
    func run(
        rate: Double, for duration: Duration, users: [String], events: [(after: Duration, run: () throws -> Void)] = [],
        drain: Duration = .seconds(30)
    ) throws -> Outcome {
        let start = ContinuousClock.now
        var events = events.sorted { $0.after < $1.after }
        let total = Int(rate * duration.asSeconds)
        var next = 0
        while next < total || (!waiting.isEmpty && ContinuousClock.now < start + duration + drain) {
            let now = ContinuousClock.now
            while let event = events.first, now >= start + event.after {
                events.removeFirst()
                try event.run()
            }
            while next < total, start + .nanoseconds(Int64(Double(next) * 1e9 / rate)) <= now {
                let user = users[next % users.count]
                let id = "load-\(next)"
                let payload = Data(
                    #"{"version":1,"id":"\#(id)","type":"RecordTensionIntent","user":"\#(user)","sentAt":"2026-11-29T10:00:00.000Z","body":{"level":3}}"#
                        .utf8)
                outcome.sent[id] = user
                waiting[id] = Waiting(user: user, payload: payload, resendAt: now + .seconds(1))
                try send(id)
                next += 1
            }
            for (id, request) in waiting where request.resendAt <= now {
                // No answer: its shard may be gone; the next one known redirects if it is wrong.
                let current = shards.endpoint(for: request.user)
                let other = endpoints[((endpoints.firstIndex(of: current) ?? 0) + 1) % endpoints.count]
                _ = shards.learn(ShardRedirect(slot: UserSlot(user: request.user), shard: nil, endpoint: other))
                let patience = min(request.patience * 2, .seconds(2))
                waiting[id]?.patience = patience
                waiting[id]?.resendAt = now + patience
                try send(id)
            }
            try receive(waitingMilliseconds: 2)
        }
        return outcome
    }

    private func send(_ id: String) throws {
        guard let request = waiting[id] else { return }
        let endpoint = shards.endpoint(for: request.user)
        let dealer = try dealers[endpoint] ?? {
            let socket = try ZMQSocket(context: context, type: .dealer)
            try socket.setLinger(milliseconds: 0)
            try socket.connect(endpoint)
            dealers[endpoint] = socket
            return socket
        }()
        _ = try dealer.send([Data(), request.payload], dontWait: true)
    }

    private func receive(waitingMilliseconds: Int) throws {
        let sockets = Array(dealers)
        let ready = try ZMQPoller.poll(sockets.map { ($0.value, .readable) }, timeoutMilliseconds: waitingMilliseconds)
        for ((endpoint, socket), events) in zip(sockets, ready) where events.contains(.readable) {
            while let frames = try socket.receiveMessage(dontWait: true), let payload = frames.last {
                let reply = JSONFieldScanner(payload)
                guard let id = reply.string("inReplyTo"), waiting[id] != nil else { continue }
                let now = ContinuousClock.now
                if reply.string("type") != MessageType.error.rawValue {
                    waiting[id] = nil
                    outcome.acknowledged.insert(id)
                    outcome.acknowledgedAt[id] = (now, endpoint)
                    if let user = outcome.sent[id], let version = reply.object("body")?.unsignedInteger("version") {
                        outcome.versions[user] = max(outcome.versions[user] ?? 0, version)
                    }
                    continue
                }
                switch reply.object("body")?.string("code") {
                case ErrorCode.wrongShard.rawValue?:
                    if let redirect = ReplyDecoding.wrongShardRedirect(in: payload, codec: codec), case .to = shards.learn(redirect) {
                        try send(id)
                    } else {
                        waiting[id]?.resendAt = now + .milliseconds(250)
                    }
                case ErrorCode.unavailable.rawValue?, ErrorCode.internalError.rawValue?:
                    waiting[id]?.resendAt = now + .milliseconds(250)
                case let code:
                    waiting[id] = nil
                    outcome.refused[id] = code ?? "?"
                }
            }
        }
    }
}

