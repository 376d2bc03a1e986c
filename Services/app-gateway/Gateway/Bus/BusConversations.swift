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

    init(bus: Bus, intents: String, timelines: String, metrics: String, conversations: BusConversations) throws {
        let answers = Answers()
        let intentsSocket = try bus.dealer(connectedTo: intents) { answers.received($0) }
        let timelinesSocket = try bus.dealer(connectedTo: timelines) { answers.received($0) }
        let metricsSocket = try bus.pusher(connectedTo: metrics)
        bus.receive(from: conversations.mailbox) { [self] messages in
            for message in messages {
                let socket =
                    switch message.destination {
                    case .intents: intentsSocket
                    case .timelines: timelinesSocket
                    case .metrics: metricsSocket
                    }
                // The empty frame makes a ROUTER see a REQ peer; a PUSH sends the payload alone.
                let frames = message.destination == .metrics ? [message.payload] : [Data(), message.payload]
                guard (try? socket.send(frames, dontWait: true)) == true else {
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
            }
        }
        bus.afterMessages { [self] _ in
            for payload in answers.take() {
                let reply = JSONFieldScanner(payload)
                guard let id = reply.string("inReplyTo"), let user = reply.string("user"),
                    let answers = waiting.removeValue(forKey: Key(id: id, user: user))
                else { continue }
                for answer in answers { answer(.reply(payload)) }
            }
        }
        bus.timer(dueBy: { [self] in deadlines.min?.instant }) { [self] _ in
            let now = ContinuousClock.now
            while let first = deadlines.min, first.instant <= now {
                deadlines.removeMin()
                for answer in waiting.removeValue(forKey: first.key) ?? [] { answer(.noAnswer) }
            }
        }
        bus.onStop { [self] _ in
            for answers in waiting.values { for answer in answers { answer(.noAnswer) } }
            waiting.removeAll()
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
