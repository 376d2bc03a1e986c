import Foundation
import Logging
import WidgetBusProtocol
import WidgetDomain
import ZeroMQ

/// A derived reader's copy of `intent-handler`'s state, kept current by the zguide's Clone
/// pattern: subscribe first, then fetch a snapshot, then apply only events newer than the
/// snapshot. Any jump in the sequence (a dropped event, a late join, a publisher restart seen
/// through a heartbeat) triggers a fresh snapshot, so the copy is never left stale.
///
/// The snapshot request is asynchronous (a DEALER polled with the subscriber), so a missing
/// owner never blocks the service that holds the replica. Owned by one thread.
public final class StateReplica {
    public struct Key: Hashable, Sendable {
        public let user: String
        public let app: WidgetApp
        public init(user: String, app: WidgetApp) {
            self.user = user
            self.app = app
        }
    }

    /// Something that changed in the replica, and the request behind it when known.
    public enum Change: Sendable {
        case state(StateRecord, causedBy: String?)
        /// A profile change affects every state of its user (their local days and hours).
        case profile(UserProfile, causedBy: String?)

        public var user: String {
            switch self {
            case .state(let record, _): record.user
            case .profile(let profile, _): profile.user
            }
        }

        public var causedBy: String? {
            switch self {
            case .state(_, let causedBy), .profile(_, let causedBy): causedBy
            }
        }
    }

    /// An event of the owner's sequence: state and profile changes share it with events the
    /// replica does not hold (such as `AppForegrounded`), which only advance the sequence.
    enum Event: Sendable {
        case state(StateChangedBody)
        case profile(ProfileChangedBody)
        case other(sequence: UInt64)

        var sequence: UInt64 {
            switch self {
            case .state(let body): body.sequence
            case .profile(let body): body.sequence
            case .other(let sequence): sequence
            }
        }
    }

    public static let snapshotTimeout: TimeInterval = 2
    /// Events held while a snapshot is awaited; past this the queue is dropped and re-fetched.
    public static let maxQueuedEvents = 100_000

    public private(set) var states: [Key: StateRecord] = [:]
    public private(set) var profiles: [String: UserProfile] = [:]
    /// The sequence of the last event (or snapshot) applied.
    public private(set) var sequence: UInt64 = 0
    public private(set) var snapshotCount = 0

    private let subscriber: ZMQSocket
    private let snapshotSocket: ZMQSocket
    private let codec: WireCodec
    private let logger: Logger
    private var awaitedSnapshot: (id: String, deadline: Date)?
    private var queued: [Event] = []

    public init(
        context: ZMQContext, eventsEndpoint: String, snapshotEndpoint: String, codec: WireCodec, logger: Logger
    ) throws {
        subscriber = try ZMQSocket(context: context, type: .sub)
        try subscriber.setLinger(milliseconds: 0)
        try subscriber.setReceiveHighWaterMark(EventPublisher.sendHighWaterMark)
        try subscriber.subscribe(Topic.statePrefix)
        try subscriber.subscribe(Topic.heartbeat)
        try subscriber.connect(eventsEndpoint)
        snapshotSocket = try ZMQSocket(context: context, type: .dealer)
        try snapshotSocket.setLinger(milliseconds: 0)
        try snapshotSocket.setMaxMessageSize(bytes: -1)
        try snapshotSocket.connect(snapshotEndpoint)
        self.codec = codec
        self.logger = logger
        try requestSnapshot(reason: "start")
    }

    public var isSynced: Bool { awaitedSnapshot == nil }

    /// The sockets to poll, in the order ``handle(ready:now:)`` expects their events.
    public var pollItems: [(socket: ZMQSocket, events: ZMQPollEvents)] {
        [(subscriber, .readable), (snapshotSocket, .readable)]
    }

    public func record(user: String, app: WidgetApp) -> StateRecord? {
        states[Key(user: user, app: app)]
    }

    /// Every state of `user`, in app order.
    public func records(user: String) -> [StateRecord] {
        WidgetApp.allCases.compactMap { record(user: user, app: $0) }
    }

    /// The user's zone for local days and hours; UTC until they set one.
    public func timeZone(user: String) -> TimeZone {
        profiles[user].flatMap { TimeZone(identifier: $0.timeZone) } ?? .gmt
    }

    /// Handles whatever is readable and returns the states that changed.
    public func handle(ready: ArraySlice<ZMQPollEvents>, now: Date = Date()) throws -> [Change] {
        var changes: [Change] = []
        if ready[ready.startIndex].contains(.readable) {
            try drainEvents(into: &changes)
        }
        if ready[ready.startIndex + 1].contains(.readable) {
            try drainSnapshots(into: &changes)
        }
        if let awaited = awaitedSnapshot, now >= awaited.deadline {
            try requestSnapshot(reason: "snapshot timed out")
        }
        return changes
    }

    private func drainEvents(into changes: inout [Change]) throws {
        while let frames = try subscriber.receiveMessage(dontWait: true) {
            guard frames.count == 2 else { continue }
            if frames[0] == Data(Topic.heartbeat.utf8) {
                guard let beat = try? codec.decode(Envelope<HeartbeatBody>.self, from: frames[1]) else { continue }
                if isSynced, beat.body.sequence != sequence {
                    try requestSnapshot(reason: "heartbeat at \(beat.body.sequence), replica at \(sequence)")
                }
                continue
            }
            guard let event = decodeEvent(frames[1]) else {
                logger.warning("undecodable state event ignored", metadata: ["topic": "\(String(decoding: frames[0], as: UTF8.self))"])
                continue
            }
            if !isSynced {
                try enqueue(event)
            } else if event.sequence == sequence + 1 {
                apply(event, into: &changes)
            } else if event.sequence > sequence + 1 {
                try enqueue(event)
                try requestSnapshot(reason: "gap: expected \(sequence + 1), got \(event.sequence)")
            }
        }
    }

    private func drainSnapshots(into changes: inout [Change]) throws {
        while let frames = try snapshotSocket.receiveMessage(dontWait: true) {
            guard let payload = frames.last, let awaited = awaitedSnapshot,
                case .success(let reply)? = try? ReplyDecoding.decode(payload, as: SnapshotBody.self, codec: codec),
                reply.inReplyTo == awaited.id
            else { continue }
            applySnapshot(reply.body, into: &changes)
            try replayQueue(into: &changes)
        }
    }

    private func decodeEvent(_ payload: Data) -> Event? {
        switch (try? codec.decode(EnvelopeHeader.self, from: payload))?.type {
        case MessageType.stateChanged.rawValue:
            (try? codec.decode(Envelope<StateChangedBody>.self, from: payload)).map { .state($0.body) }
        case MessageType.profileChanged.rawValue:
            (try? codec.decode(Envelope<ProfileChangedBody>.self, from: payload)).map { .profile($0.body) }
        default:
            (try? codec.decode(Envelope<SequencedBody>.self, from: payload)).map { .other(sequence: $0.body.sequence) }
        }
    }

    private func apply(_ event: Event, into changes: inout [Change]) {
        switch event {
        case .state(let body):
            states[Key(user: body.record.user, app: body.record.app)] = body.record
            changes.append(.state(body.record, causedBy: body.causedBy))
        case .profile(let body):
            profiles[body.profile.user] = body.profile
            changes.append(.profile(body.profile, causedBy: body.causedBy))
        case .other:
            break
        }
        sequence = event.sequence
    }

    /// Replaces the replica with the snapshot (states the owner no longer has are dropped) and
    /// reports what differs.
    private func applySnapshot(_ snapshot: SnapshotBody, into changes: inout [Change]) {
        let users = Set(snapshot.profiles.map(\.user))
        let keys = Set(snapshot.states.map { Key(user: $0.user, app: $0.app) })
        profiles = profiles.filter { users.contains($0.key) }
        states = states.filter { keys.contains($0.key) }
        for profile in snapshot.profiles where profiles[profile.user] != profile {
            profiles[profile.user] = profile
            changes.append(.profile(profile, causedBy: nil))
        }
        for record in snapshot.states {
            let key = Key(user: record.user, app: record.app)
            if states[key] != record {
                states[key] = record
                changes.append(.state(record, causedBy: nil))
            }
        }
        sequence = snapshot.sequence
        awaitedSnapshot = nil
        snapshotCount += 1
        logger.info(
            "replica synced from snapshot",
            metadata: ["sequence": "\(sequence)", "states": "\(snapshot.states.count)", "changed": "\(changes.count)"])
    }

    private func replayQueue(into changes: inout [Change]) throws {
        let pending = queued.sorted { $0.sequence < $1.sequence }
        queued.removeAll()
        for event in pending where event.sequence > sequence {
            guard event.sequence == sequence + 1 else {
                try requestSnapshot(reason: "gap in queued events after snapshot")
                return
            }
            apply(event, into: &changes)
        }
    }

    private func enqueue(_ event: Event) throws {
        guard queued.count < Self.maxQueuedEvents else {
            queued.removeAll()
            try requestSnapshot(reason: "event queue overflow")
            return
        }
        queued.append(event)
    }

    private func requestSnapshot(reason: String) throws {
        let id = UUID().uuidString.lowercased()
        let request = Envelope(
            id: id, type: MessageType.snapshotRequest.rawValue, body: SnapshotRequestBody(prefix: Topic.statePrefix))
        try snapshotSocket.send([Data(), try codec.encode(request)], dontWait: true)
        awaitedSnapshot = (id, Date().addingTimeInterval(Self.snapshotTimeout))
        logger.info("requesting state snapshot", metadata: ["reason": "\(reason)"])
    }

    public func close() {
        subscriber.close()
        snapshotSocket.close()
    }
}
