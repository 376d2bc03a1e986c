import BusRuntime
import Foundation
import HeapModule
import WidgetBusProtocol
import ZeroMQ

/// Where app-gateway sends what a request asks for.
enum BusDestination: Sendable {
    /// intent-handler (`WIDGETBUS_INTENTS`): intents and app messages, answered.
    case intents
    /// timeline-service (`WIDGETBUS_TIMELINES`): timeline requests, answered.
    case timelines
    /// metrics-ingest (`WIDGETBUS_METRICS`): sample batches, pushed, never answered.
    case metrics
}

/// What came of one message sent on the bus.
enum BusOutcome: Sendable {
    /// The service's reply payload.
    case reply(Data)
    /// A pushed message was handed to a connected metrics-ingest.
    case pushed
    /// No reply within the deadline, or no peer took the push: the service is down or slow.
    case noAnswer
}

/// The HTTP side's way onto the bus: each message goes through a mailbox to the bus thread
/// (libzmq sockets belong to one thread), and its outcome comes back to the waiting task.
/// Nothing here blocks a thread of the concurrency pool.
final class BusConversations: Sendable {
    struct Outgoing: Sendable {
        var destination: BusDestination
        /// The envelope's id and user: a reply is matched by both, so two users who send the
        /// same `Idempotency-Key` never see each other's reply.
        var id: String
        var user: String
        var payload: Data
        var deadline: ContinuousClock.Instant
        var answer: @Sendable (BusOutcome) -> Void
    }

    let mailbox: BusMailbox<Outgoing>

    init() throws {
        mailbox = try BusMailbox()
    }

    /// Sends `payload` (an envelope with `id` for `user`) to `destination` and waits for its
    /// outcome, at most `patience`.
    func send(_ payload: Data, id: String, user: String, to destination: BusDestination, patience: Duration) async -> BusOutcome {
        await withCheckedContinuation { continuation in
            let posted = mailbox.post(
                Outgoing(
                    destination: destination, id: id, user: user, payload: payload, deadline: .now + patience,
                    answer: { continuation.resume(returning: $0) }))
            if !posted { continuation.resume(returning: .noAnswer) }
        }
    }
}

/// The bus end of ``BusConversations``: DEALERs to intent-handler and timeline-service, a PUSH to
/// metrics-ingest, and the requests waiting for their replies. Owned by the bus thread.
///
/// intent-handler may run as shards (docs/SCALING.md): a request answered `wrong_shard` naming
/// the owner of its user's slot is sent there, on a DEALER of its own, and so is every later
/// request for that slot (``ShardMap``). A slot moving between shards (no owner named) is
/// answered as it is, a 503 the client retries.
final class BusConversationEndpoints {
    private struct Key: Hashable {
        var id: String
        var user: String
    }

    private struct Deadline: Comparable {
        var instant: ContinuousClock.Instant
        var key: Key
        static func < (a: Deadline, b: Deadline) -> Bool { a.instant < b.instant }
    }

    /// Answers waiting by (id, user); a retried request with the same id waits beside the first.
    private var waiting: [Key: [@Sendable (BusOutcome) -> Void]] = [:]
    /// Deadlines of the waiting requests, earliest first; an entry whose request was answered is
    /// skipped when it comes up.
    private var deadlines = Heap<Deadline>()
    /// The intents waiting, to send again where a `wrong_shard` reply points, and how many
    /// times each was redirected.
    private var intentsSent: [Key: (payload: Data, redirects: Int)] = [:]
    private var shards: ShardMap
    /// A DEALER per intent-handler shard, by endpoint, the configured one first.
    private var shardSockets: [String: ZMQSocket] = [:]
    /// A request redirected more often is answered with its last reply: shards that disagree
    /// for longer are moving the slot.
    private static let mostRedirects = 3

    init(bus: Bus, intents: String, timelines: String, metrics: String, conversations: BusConversations) throws {
        let answers = Answers()
        shards = ShardMap(defaultEndpoint: intents)
        func intentsSocket(for user: String) throws -> ZMQSocket {
            let endpoint = shards.endpoint(for: user)
            if let socket = shardSockets[endpoint] { return socket }
            do {
                let socket = try bus.dealer(connectedTo: endpoint) { answers.received($0) }
                shardSockets[endpoint] = socket
                return socket
            } catch {
                // An endpoint a redirect named that cannot be connected to: the slot's requests
                // go to the configured endpoint again.
                _ = shards.learn(ShardRedirect(slot: UserSlot(user: user), shard: nil, endpoint: nil))
                throw error
            }
        }
        _ = try intentsSocket(for: "")
        let timelinesSocket = try bus.dealer(connectedTo: timelines) { answers.received($0) }
        let metricsSocket = try bus.pusher(connectedTo: metrics)
        bus.receive(from: conversations.mailbox) { [self] messages in
            for message in messages {
                let socket: ZMQSocket? =
                    switch message.destination {
                    case .intents: try? intentsSocket(for: message.user)
                    case .timelines: timelinesSocket
                    case .metrics: metricsSocket
                    }
                // The empty frame makes a ROUTER see a REQ peer; a PUSH sends the payload alone.
                let frames = message.destination == .metrics ? [message.payload] : [Data(), message.payload]
                guard let socket, (try? socket.send(frames, dontWait: true)) == true else {
                    message.answer(.noAnswer)
                    continue
                }
                if message.destination == .metrics {
                    message.answer(.pushed)
                    continue
                }
                let key = Key(id: message.id, user: message.user)
                waiting[key, default: []].append(message.answer)
                deadlines.insert(Deadline(instant: message.deadline, key: key))
                if message.destination == .intents { intentsSent[key] = (message.payload, intentsSent[key]?.redirects ?? 0) }
            }
        }
        bus.afterMessages { [self] _ in
            for payload in answers.take() {
                let reply = JSONFieldScanner(payload)
                guard let id = reply.string("inReplyTo"), let user = reply.string("user") else { continue }
                let key = Key(id: id, user: user)
                if let intent = intentsSent[key], intent.redirects < Self.mostRedirects,
                    let redirect = ReplyDecoding.wrongShardRedirect(in: payload, codec: bus.codec),
                    case .to = shards.learn(redirect),
                    (try? intentsSocket(for: user).send([Data(), intent.payload], dontWait: true)) == true
                {
                    intentsSent[key]?.redirects += 1
                    continue
                }
                intentsSent[key] = nil
                for answer in waiting.removeValue(forKey: key) ?? [] { answer(.reply(payload)) }
            }
        }
        bus.timer(dueBy: { [self] in deadlines.min?.instant }) { [self] _ in
            let now = ContinuousClock.now
            while let first = deadlines.min, first.instant <= now {
                deadlines.removeMin()
                intentsSent[first.key] = nil
                for answer in waiting.removeValue(forKey: first.key) ?? [] { answer(.noAnswer) }
            }
        }
        bus.onStop { [self] _ in
            for answers in waiting.values { for answer in answers { answer(.noAnswer) } }
            waiting.removeAll()
            intentsSent.removeAll()
        }
    }

    /// Replies taken in a turn, matched after the turn's handlers.
    private final class Answers {
        private var payloads: [Data] = []
        func received(_ frames: [Data]) {
            if let payload = frames.last { payloads.append(payload) }
        }
        func take() -> [Data] {
            defer { payloads.removeAll(keepingCapacity: true) }
            return payloads
        }
    }
}
