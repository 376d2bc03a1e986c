import Foundation
import GRDB
import ServiceSupport
import WidgetBusProtocol
import WidgetDomain

/// Turns one request payload into its reply and, when state changed, the event to publish —
/// committing both before either leaves the process. Pure rules come from WidgetDomain; this
/// type only decodes, looks up, persists and encodes.
final class IntentProcessor {
    /// What to send after the commit.
    struct Outcome {
        var reply: Data
        var event: (topic: String, sequence: UInt64, payload: Data)?
    }

    enum Endpoint {
        case intents, snapshot
    }

    private let store: WidgetStateStore
    private let codec: WireCodec
    private let clock: @Sendable () -> Date
    private var random: RandomSource

    init(store: WidgetStateStore, codec: WireCodec, clock: @escaping @Sendable () -> Date = Date.init,
         random: RandomSource = .system) {
        self.store = store
        self.codec = codec
        self.clock = clock
        self.random = random
    }

    func process(_ payload: Data, on endpoint: Endpoint) -> Outcome {
        let request: Request
        do {
            request = try Request.decode(payload, codec: codec)
        } catch {
            let header = codec.bestEffortHeader(of: payload)
            return Outcome(reply: codec.errorReply(to: header?.id, user: header?.user, code: error.code, message: error.message))
        }
        do {
            switch (request.body, endpoint) {
            case (.ping, _):
                return Outcome(reply: try codec.reply(to: request.id, user: request.user, type: .pong, body: EmptyBody()))
            case (.intent(let intent), .intents):
                return try apply(intent, of: request)
            case (.pendingRecords, .intents):
                let user = request.user!
                let body = PendingRecordsBody(user: user, records: try store.pendingRecords(user: user))
                return Outcome(reply: try codec.reply(to: request.id, user: user, type: .pendingRecordsReply, body: body))
            case (.snapshot(let prefix), .snapshot):
                let snapshot = try store.snapshot(topicPrefix: prefix)
                return Outcome(reply: try codec.reply(to: request.id, user: nil, type: .snapshotReply, body: snapshot))
            default:
                return Outcome(reply: codec.errorReply(
                    to: request.id, user: request.user, code: .unknownType,
                    message: "\(request.type.rawValue) is not served on this endpoint"))
            }
        } catch {
            return Outcome(reply: codec.errorReply(
                to: request.id, user: request.user, code: .internalError, message: "\(error)"))
        }
    }

    /// Applies an intent exactly once: a request id seen before gets its stored reply back.
    private func apply(_ intent: WidgetIntent, of request: Request) throws -> Outcome {
        let user = request.user!
        let now = clock()
        return try store.database.write { db in
            if let handled = try store.handledRequest(db, id: request.id) {
                guard handled.user == user, handled.type == request.type.rawValue else {
                    return Outcome(reply: codec.errorReply(
                        to: request.id, user: user, code: .idReused,
                        message: "id \(request.id) was already used by another request"))
                }
                return Outcome(reply: handled.reply)
            }
            let current = try store.state(db, user: user, app: intent.app)
                ?? StateRecord(user: user, app: intent.app, version: 0, state: .initial(for: intent.app))
            var context = ReduceContext(now: now, timeZone: .gmt, random: random)
            defer { random = context.random }

            let outcome: Outcome
            do {
                let transition = try current.state.reduce(intent, context: &context)
                if transition.state == current.state && transition.records.isEmpty {
                    outcome = Outcome(reply: try codec.reply(to: request.id, user: user, type: .stateReply, body: current, now: now))
                } else {
                    let sequence = try store.nextSequence(db)
                    let record = StateRecord(user: user, app: intent.app, version: sequence, state: transition.state)
                    try store.saveState(db, record)
                    for pending in transition.records {
                        try store.savePendingRecord(db, user: user, record: pending, revision: sequence)
                    }
                    let event = Envelope(
                        type: MessageType.stateChanged.rawValue, user: user, sentAt: now,
                        body: StateChangedBody(sequence: sequence, causedBy: request.id, record: record))
                    outcome = Outcome(
                        reply: try codec.reply(to: request.id, user: user, type: .stateReply, body: record, now: now),
                        event: (Topic.state(app: intent.app, user: user), sequence, try codec.encode(event)))
                }
            } catch let violation as RuleViolation {
                outcome = Outcome(reply: codec.errorReply(
                    to: request.id, user: user, code: ErrorCode(rawValue: violation.code), message: violation.message))
            }
            try store.saveHandledRequest(db, id: request.id, user: user, type: request.type.rawValue, reply: outcome.reply, at: now)
            return outcome
        }
    }
}
