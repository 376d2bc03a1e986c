import BusRuntime
import Foundation
import WidgetBusProtocol

/// The users' widget push tokens, as push-gateway follows them from intent-handler
/// (``SequencedReplica``: `PushTokensChanged` events, a `state.push.` snapshot at start, on a gap
/// and on a new epoch). It follows the whole state sequence, to see gaps, but reads only the
/// token events; the others only advance the sequence. The tokens themselves are the planner's
/// to keep: this model holds only who has any.
struct PushTokenDirectory: ReplicaModel {
    enum Event: Sendable {
        case tokens(SequencePosition, UserPushTokens)
        case other(SequencePosition)
    }

    /// What changed: one user's tokens, or everyone's (a snapshot replaced them all).
    enum Change: Sendable {
        case user(UserPushTokens)
        case all([UserPushTokens])
    }

    private var users: Set<String> = []

    var count: Int { users.count }

    static var topicPrefix: String { Topic.statePrefix }
    var snapshotPrefix: String { Topic.pushTokensPrefix }

    func decodeEvent(_ payload: Data, codec: WireCodec) -> Event? {
        let envelope = JSONFieldScanner(payload)
        guard let body = envelope.object("body"), let epoch = body.string("epoch"), let sequence = body.unsignedInteger("sequence")
        else { return nil }
        let position = SequencePosition(epoch: epoch, sequence: sequence)
        guard envelope.string("type") == MessageType.pushTokensChanged.rawValue else { return .other(position) }
        return (try? codec.decode(Envelope<PushTokensChangedBody>.self, from: payload)).map { .tokens(position, $0.body.pushTokens) }
    }

    static func position(of event: Event) -> SequencePosition {
        switch event {
        case .tokens(let position, _), .other(let position): position
        }
    }

    static func position(of snapshot: SnapshotBody) -> SequencePosition {
        SequencePosition(epoch: snapshot.epoch, sequence: snapshot.sequence)
    }

    mutating func apply(_ event: Event) -> [Change] {
        guard case .tokens(_, let user) = event else { return [] }
        if user.tokens.isEmpty { users.remove(user.user) } else { users.insert(user.user) }
        return [.user(user)]
    }

    mutating func replace(with snapshot: SnapshotBody) -> [Change] {
        users = Set(snapshot.pushTokens.filter { !$0.tokens.isEmpty }.map(\.user))
        return [.all(snapshot.pushTokens)]
    }
}
