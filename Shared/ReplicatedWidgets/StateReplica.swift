import BusRuntime
import Foundation
import Logging
import WidgetBusProtocol
import WidgetDomain

/// A derived reader's copy of `intent-handler`'s state — every user's app states and profiles —
/// kept current by ``SequencedReplica`` (the zguide's Clone pattern: snapshot at start, then
/// events; any gap or heartbeat mismatch re-syncs, so the copy is never left stale).
/// Owned by one thread.
public final class StateReplica {
    public struct Key: Hashable, Sendable {
        public let user: String
        public let app: WidgetApp
        public init(user: String, app: WidgetApp) {
            self.user = user
            self.app = app
        }
    }

    /// Something that changed in the replica, and the request behind it when known (nil: from a
    /// snapshot).
    public enum Change: Sendable {
        case state(StateRecord, cause: Cause?)
        /// A profile change affects every state of its user (their local days and hours).
        case profile(UserProfile, cause: Cause?)

        public var user: String {
            switch self {
            case .state(let record, _): record.user
            case .profile(let profile, _): profile.user
            }
        }

        public var cause: Cause? {
            switch self {
            case .state(_, let cause), .profile(_, let cause): cause
            }
        }
    }

    /// The states and profiles, as ``SequencedReplica`` applies intent-handler's events to them.
    /// A follower that needs only the users' zones holds profiles alone: it still follows the
    /// whole sequence (to see gaps) but skips the other events by their sequence, unread.
    public struct States: ReplicaModel {
        /// An event of the owner's sequence: state and profile changes share it with events the
        /// replica does not hold (such as `AppForegrounded`), which only advance the sequence.
        public enum Event: Sendable {
            case state(Envelope<StateChangedBody>)
            case profile(Envelope<ProfileChangedBody>)
            case other(SequencePosition)
        }

        public fileprivate(set) var states: [Key: StateRecord] = [:]
        public fileprivate(set) var profiles: [String: UserProfile] = [:]
        /// Whether widget states are kept, or profiles only.
        public let holdsStates: Bool

        public var count: Int { states.count + profiles.count }

        public init(holdsStates: Bool) {
            self.holdsStates = holdsStates
        }

        public static var topicPrefix: String { Topic.statePrefix }
        public var snapshotPrefix: String { holdsStates ? Topic.statePrefix : Topic.profilePrefix }

        /// Reads the type and sequence first; decodes the body only of an event the replica holds.
        public func decodeEvent(_ payload: Data, codec: WireCodec) -> Event? {
            let envelope = JSONFieldScanner(payload)
            switch envelope.string("type") {
            case MessageType.stateChanged.rawValue where holdsStates:
                return (try? codec.decode(Envelope<StateChangedBody>.self, from: payload)).map { .state($0) }
            case MessageType.profileChanged.rawValue:
                return (try? codec.decode(Envelope<ProfileChangedBody>.self, from: payload)).map { .profile($0) }
            default:
                guard let body = envelope.object("body"), let epoch = body.string("epoch"),
                    let sequence = body.unsignedInteger("sequence")
                else { return nil }
                return .other(SequencePosition(epoch: epoch, sequence: sequence))
            }
        }

        public static func position(of event: Event) -> SequencePosition {
            switch event {
            case .state(let event): SequencePosition(epoch: event.body.epoch, sequence: event.body.sequence)
            case .profile(let event): SequencePosition(epoch: event.body.epoch, sequence: event.body.sequence)
            case .other(let position): position
            }
        }

        public static func position(of snapshot: SnapshotBody) -> SequencePosition {
            SequencePosition(epoch: snapshot.epoch, sequence: snapshot.sequence)
        }

        public mutating func apply(_ event: Event) -> [Change] {
            switch event {
            case .state(let event):
                let record = event.body.record
                states[Key(user: record.user, app: record.app)] = record
                return [.state(record, cause: Cause(id: event.body.causedBy, trace: event.trace))]
            case .profile(let event):
                profiles[event.body.profile.user] = event.body.profile
                return [.profile(event.body.profile, cause: Cause(id: event.body.causedBy, trace: event.trace))]
            case .other:
                return []
            }
        }

        public mutating func replace(with snapshot: SnapshotBody) -> [Change] {
            let users = Set(snapshot.profiles.map(\.user))
            let keys = Set(snapshot.states.map { Key(user: $0.user, app: $0.app) })
            profiles = profiles.filter { users.contains($0.key) }
            states = states.filter { keys.contains($0.key) }
            var changes: [Change] = []
            for profile in snapshot.profiles where profiles[profile.user] != profile {
                profiles[profile.user] = profile
                changes.append(.profile(profile, cause: nil))
            }
            for record in snapshot.states {
                let key = Key(user: record.user, app: record.app)
                if states[key] != record {
                    states[key] = record
                    changes.append(.state(record, cause: nil))
                }
            }
            return changes
        }
    }

    public static var snapshotTimeout: TimeInterval { SequencedReplica<States>.snapshotTimeout }

    private let engine: SequencedReplica<States>

    /// - Parameters:
    ///   - holdsStates: false for a follower that needs the users' profiles only.
    ///   - pacing: the subscription's (``SequencedReplica/init(_:bus:eventsEndpoint:snapshotEndpoint:batch:pacing:logger:onChange:)``).
    ///   - onChange: gets the states and profiles each event or snapshot changed.
    public init(
        bus: Bus, eventsEndpoint: String, snapshotEndpoint: String, holdsStates: Bool = true, pacing: TimeInterval = 0,
        logger: Logger, onChange: @escaping ([Change]) -> Void = { _ in }
    ) throws {
        engine = try SequencedReplica(
            States(holdsStates: holdsStates), bus: bus, eventsEndpoint: eventsEndpoint, snapshotEndpoint: snapshotEndpoint,
            pacing: pacing, logger: logger, onChange: onChange)
    }

    public var states: [Key: StateRecord] { engine.model.states }
    public var profiles: [String: UserProfile] { engine.model.profiles }
    /// The sequence of the last event (or snapshot) applied.
    public var sequence: UInt64 { engine.sequence }
    public var snapshotCount: Int { engine.snapshotCount }
    public var isSynced: Bool { engine.isSynced }
    /// Where the replica stands in its owner's stream while it follows it (``SequencedReplica/followingPosition(at:)``).
    public func followingPosition(at now: Date) -> SequencePosition? { engine.followingPosition(at: now) }

    public func record(user: String, app: WidgetApp) -> StateRecord? {
        engine.model.states[Key(user: user, app: app)]
    }

    /// Every state of `user`, in app order.
    public func records(user: String) -> [StateRecord] {
        WidgetApp.allCases.compactMap { record(user: user, app: $0) }
    }

    /// The user's zone for local days and hours; UTC until they set one.
    public func timeZone(user: String) -> TimeZone {
        engine.model.profiles[user].flatMap { UserTimeZone.zone(named: $0.timeZone) } ?? .gmt
    }

}
