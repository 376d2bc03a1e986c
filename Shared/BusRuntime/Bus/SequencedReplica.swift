import Foundation
import Logging
import Metrics
import Observability
import ServiceSupport
import WidgetBusProtocol
import ZeroMQ

/// What a ``SequencedReplica`` mirrors: how the owner's events and snapshots read, and what
/// applying them changes. One conformance per owner (intent-handler's states, metrics-ingest's
/// aggregates); the Clone-pattern rules around them are the engine's, written once.
public protocol ReplicaModel {
    /// An event of the owner's sequence, decoded.
    associatedtype Event: Sendable
    /// The body of the owner's snapshot reply.
    associatedtype Snapshot: Sendable
    /// What the replica reports as changed.
    associatedtype Change

    /// The topic prefix of the owner's events: every event of the sequence, so a gap is seen.
    static var topicPrefix: String { get }
    /// What snapshot requests ask for: the part of the owner's data this model holds.
    var snapshotPrefix: String { get }
    /// Reads one event payload; nil when it cannot be read (logged and skipped).
    func decodeEvent(_ payload: Data, codec: WireCodec) -> Event?
    /// Reads a snapshot reply: the request it answers and its body; nil when it is not one.
    func decodeSnapshotReply(_ payload: Data, codec: WireCodec) -> (inReplyTo: String?, snapshot: Snapshot)?
    static func position(of event: Event) -> SequencePosition
    static func position(of snapshot: Snapshot) -> SequencePosition

    /// Applies the event that follows the replica's sequence.
    mutating func apply(_ event: Event) -> [Change]
    /// Replaces everything with the snapshot (what the owner no longer has is dropped) and
    /// reports what differs.
    mutating func replace(with snapshot: Snapshot) -> [Change]
    /// How many entries (states, aggregates, timelines) the model holds in memory.
    var count: Int { get }
}

extension ReplicaModel {
    public var snapshotPrefix: String { Self.topicPrefix }
}

extension ReplicaModel where Snapshot: Decodable {
    public func decodeSnapshotReply(_ payload: Data, codec: WireCodec) -> (inReplyTo: String?, snapshot: Snapshot)? {
        guard case .success(let reply)? = try? ReplyDecoding.decode(payload, as: Snapshot.self, codec: codec) else { return nil }
        return (reply.inReplyTo, reply.body)
    }
}

/// Where an event or snapshot stands in its publisher's history: the ``PublisherEpoch`` it was
/// published in and its sequence number there. Numbers of different epochs are not compared.
public struct SequencePosition: Equatable, Sendable {
    public var epoch: String
    public var sequence: UInt64

    public init(epoch: String, sequence: UInt64) {
        self.epoch = epoch
        self.sequence = sequence
    }
}

/// Why a ``SequencedReplica`` fetches a snapshot: the `reason` label of
/// `widgetbus_replica_snapshots_requested_total`.
public enum ReplicaResyncReason: String, CaseIterable, Sendable {
    /// The replica started.
    case start
    /// The last snapshot request went unanswered.
    case timeout
    /// An event or heartbeat is further ahead than the next sequence: events were missed.
    case gap
    /// The publisher restarted: a new epoch.
    case restart
    /// Events queued while a snapshot was awaited overflowed.
    case overflow
    /// The follower asked (``SequencedReplica/resync(reason:)``): what it derived was lost elsewhere.
    case requested
}

/// A derived reader's copy of an owner's data kept current by the zguide's Clone pattern:
/// subscribe first, then fetch a snapshot, then apply only events of the snapshot's epoch newer
/// than it. Any jump in the sequence (a dropped event, a late join) or another epoch (an owner
/// restart), in an event or a heartbeat, triggers a fresh snapshot, so the copy is never left
/// stale and never takes an event of one start for the next of another.
///
/// The snapshot request is asynchronous (a DEALER on the same ``Bus`` as the subscriber), so a
/// missing owner never blocks the service that holds the replica. What applying an event or a
/// snapshot changed goes to the owner's `onChange` at once. Owned by the bus's thread.
public final class SequencedReplica<Model: ReplicaModel> {
    /// How long a first snapshot request waits for its reply before it is asked again.
    public static var snapshotTimeout: TimeInterval { 2 }
    /// The longest wait: each unanswered request doubles the wait up to this. An owner too busy
    /// to answer in time still answers every request it got, and each answer costs it a build of
    /// everything it holds, so asking at a fixed pace would bury it.
    public static var longestSnapshotTimeout: TimeInterval { 32 }
    /// Events held while a snapshot is awaited; past this the queue is dropped and re-fetched.
    public static var maxQueuedEvents: Int { 100_000 }
    /// How long a replica may hear nothing of its owner (no event, no heartbeat: owners beat
    /// every second) and still say it follows it (``followingPosition(at:)``).
    public static var followingSilence: TimeInterval { 3 }

    public private(set) var model: Model
    /// The owner's epoch the replica is synced in; nil before the first snapshot.
    public private(set) var epoch: String?
    /// The sequence of the last event (or snapshot) applied.
    public private(set) var sequence: UInt64 = 0
    public private(set) var snapshotCount = 0

    /// Set in `init` once the bus has made it: its reply handler needs the replica itself.
    private var snapshotSocket: ZMQSocket?
    private let codec: WireCodec
    private let clock: any WallClock
    private let logger: Logger
    private var awaitedSnapshot: (id: String, deadline: Date)?
    /// When the owner's last event, heartbeat or snapshot was taken.
    private var lastHeard: Date?
    /// The wait of the next snapshot request: ``snapshotTimeout``, doubled after each timeout.
    private var snapshotWait = SequencedReplica.snapshotTimeout
    private var queued: [Model.Event] = []
    private let onChange: ([Model.Change]) -> Void
    private let metrics: ReplicaMetrics

    /// Subscribes to the owner's events at `eventsEndpoint` and asks its snapshot at
    /// `snapshotEndpoint`, both on `bus`; `onChange` gets what each event or snapshot changed.
    /// `batch` and `pacing` are the subscription's (``Bus/subscribe(to:topics:batch:pacing:_:)``):
    /// how many events a turn takes, and how far behind the owner a follower that does not need
    /// every event at once may fall to take them in fewer turns.
    public init(
        _ model: Model, bus: Bus, eventsEndpoint: String, snapshotEndpoint: String, batch: Int = Bus.defaultBatch,
        pacing: TimeInterval = 0, logger: Logger, onChange: @escaping ([Model.Change]) -> Void
    ) throws {
        self.model = model
        codec = bus.codec
        clock = bus.clock
        self.logger = logger
        self.onChange = onChange
        metrics = ReplicaMetrics(endpoint: bus.binding.endpointName(of: eventsEndpoint))
        try bus.subscribe(to: eventsEndpoint, topics: [Model.topicPrefix, Topic.heartbeat], batch: batch, pacing: pacing) { frames in
            try self.receiveEvent(frames)
        }
        snapshotSocket = try bus.dealer(connectedTo: snapshotEndpoint) { frames in
            try self.receiveSnapshot(frames)
        }
        bus.timer(dueAt: { self.awaitedSnapshot?.deadline }) { now in
            self.snapshotWait = min(2 * self.snapshotWait, Self.longestSnapshotTimeout)
            try self.requestSnapshot(.timeout, "snapshot timed out", now: now)
        }
        try requestSnapshot(.start, "start")
    }

    public var isSynced: Bool { awaitedSnapshot == nil }

    /// Where the replica stands in its owner's stream — every event up to ``sequence`` of
    /// ``epoch`` applied — while it follows it at `now`: synced, and heard from within
    /// ``followingSilence``. Nil before its first snapshot, while it waits for a new one (the
    /// snapshot brings it up to date at once) and while cut off from the owner: an owner that
    /// holds its intake back while this replica is behind must not hold it for a position that
    /// is not moving for want of events.
    public func followingPosition(at now: Date) -> SequencePosition? {
        guard let epoch, isSynced, let lastHeard, now.timeIntervalSince(lastHeard) <= Self.followingSilence else { return nil }
        return SequencePosition(epoch: epoch, sequence: sequence)
    }

    /// Fetches a fresh snapshot though nothing was missed on the bus: for a follower that found
    /// what it derived from the replica lost elsewhere (a file deleted by hand).
    public func resync(reason: String) throws {
        guard isSynced else { return }
        try requestSnapshot(.requested, reason)
    }

    private func receiveEvent(_ frames: [Data]) throws {
        guard frames.count == 2 else { return }
        lastHeard = clock.now
        if frames[0] == Data(Topic.heartbeat.utf8) {
            guard let beat = try? codec.decode(Envelope<HeartbeatBody>.self, from: frames[1]) else { return }
            // A heartbeat behind the replica in its own epoch was sent before the snapshot it
            // applied (which reached it first, on another socket): it tells nothing new.
            if isSynced, beat.body.epoch == epoch {
                metrics.lag.record(beat.body.sequence > sequence ? beat.body.sequence - sequence : 0)
            }
            if isSynced, beat.body.epoch != epoch || beat.body.sequence > sequence {
                try requestSnapshot(
                    beat.body.epoch != epoch ? .restart : .gap,
                    "heartbeat at \(beat.body.epoch)/\(beat.body.sequence), replica at \(epoch ?? "-")/\(sequence)")
            }
            return
        }
        guard let event = model.decodeEvent(frames[1], codec: codec) else {
            logger.warning("undecodable event ignored", metadata: ["widgetbus.topic": "\(String(decoding: frames[0], as: UTF8.self))"])
            return
        }
        let position = Model.position(of: event)
        if !isSynced {
            try enqueue(event)
        } else if position.epoch != epoch {
            try enqueue(event)
            try requestSnapshot(.restart, "publisher restarted: epoch \(position.epoch), replica in \(epoch ?? "-")")
        } else if position.sequence == sequence + 1 {
            report(model.apply(event))
            sequence = position.sequence
        } else if position.sequence > sequence + 1 {
            try enqueue(event)
            try requestSnapshot(.gap, "gap: expected \(sequence + 1), got \(position.sequence)")
        }
    }

    private func receiveSnapshot(_ frames: [Data]) throws {
        guard let payload = frames.last, let awaited = awaitedSnapshot,
            let reply = model.decodeSnapshotReply(payload, codec: codec), reply.inReplyTo == awaited.id
        else { return }
        lastHeard = clock.now
        let differences = model.replace(with: reply.snapshot)
        let position = Model.position(of: reply.snapshot)
        (epoch, sequence) = (position.epoch, position.sequence)
        awaitedSnapshot = nil
        snapshotWait = Self.snapshotTimeout
        snapshotCount += 1
        metrics.lag.record(0)
        logger.info(
            "replica synced from snapshot",
            metadata: [
                "widgetbus.topic_prefix": "\(model.snapshotPrefix)", "widgetbus.epoch": "\(position.epoch)", "widgetbus.sequence": "\(sequence)",
                "widgetbus.changed": "\(differences.count)",
            ])
        report(differences)
        try replayQueue()
    }

    /// Applies the queued events that follow the snapshot. Events arrive in publishing order, so
    /// when the last one queued is of another epoch the owner restarted after serving the
    /// snapshot: only that epoch's events are kept, for the next snapshot.
    private func replayQueue() throws {
        if let latest = queued.last.map({ Model.position(of: $0).epoch }), latest != epoch {
            queued.removeAll { Model.position(of: $0).epoch != latest }
            try requestSnapshot(.restart, "publisher restarted while the snapshot was served")
            return
        }
        let pending = queued.filter { Model.position(of: $0).epoch == epoch }
            .sorted { Model.position(of: $0).sequence < Model.position(of: $1).sequence }
        queued.removeAll()
        for event in pending where Model.position(of: event).sequence > sequence {
            guard Model.position(of: event).sequence == sequence + 1 else {
                try requestSnapshot(.gap, "gap in queued events after snapshot")
                return
            }
            report(model.apply(event))
            sequence = Model.position(of: event).sequence
        }
    }

    private func report(_ changes: [Model.Change]) {
        guard !changes.isEmpty else { return }
        metrics.entries.record(model.count)
        onChange(changes)
    }

    private func enqueue(_ event: Model.Event) throws {
        guard queued.count < Self.maxQueuedEvents else {
            queued.removeAll()
            try requestSnapshot(.overflow, "event queue overflow")
            return
        }
        queued.append(event)
    }

    private func requestSnapshot(_ reason: ReplicaResyncReason, _ detail: String, now: Date? = nil) throws {
        guard let snapshotSocket else { return }
        metrics.resyncs[reason]?.increment()
        let now = now ?? clock.now
        let id = MessageID.random()
        let request = Envelope(
            id: id, type: MessageType.snapshotRequest.rawValue, sentAt: now, body: SnapshotRequestBody(prefix: model.snapshotPrefix))
        try snapshotSocket.send([Data(), try codec.encode(request)], dontWait: true)
        awaitedSnapshot = (id, now.addingTimeInterval(snapshotWait))
        logger.info(
            "requesting snapshot",
            metadata: ["widgetbus.topic_prefix": "\(model.snapshotPrefix)", "widgetbus.reason": "\(detail)", "widgetbus.waiting": "\(snapshotWait) s"])
    }
}

/// What a replica reports, labeled by the endpoint of the events it follows.
private struct ReplicaMetrics {
    /// `widgetbus_replica_lag_events{endpoint}`: how many events the publisher's last heartbeat
    /// was ahead of the replica (0 once a snapshot is applied).
    let lag: Gauge
    /// `widgetbus_replica_snapshots_requested_total{endpoint,reason}`: the re-syncs, by why.
    let resyncs: [ReplicaResyncReason: Counter]
    /// `widgetbus_replica_entries{endpoint}`: what the replica holds in memory.
    let entries: Gauge

    init(endpoint: String) {
        lag = Gauge(MetricCatalog.replicaLag, ["endpoint": endpoint])
        entries = Gauge(MetricCatalog.replicaEntries, ["endpoint": endpoint])
        resyncs = Dictionary(uniqueKeysWithValues: ReplicaResyncReason.allCases.map {
            ($0, Counter(MetricCatalog.replicaResyncs, ["endpoint": endpoint, "reason": $0.rawValue]))
        })
    }
}
