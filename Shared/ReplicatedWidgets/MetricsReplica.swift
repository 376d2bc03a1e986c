import BusRuntime
import Foundation
import Logging
import WidgetBusProtocol
import WidgetDomain

/// A derived reader's copy of metrics-ingest's per-user aggregates, kept current like the
/// state replica (``SequencedReplica``: snapshot at start, then `MetricsChanged` events; any gap
/// or heartbeat mismatch re-syncs).
public final class MetricsReplica {
    /// An aggregate that changed, and the pushed message behind it when known (nil: from a snapshot).
    public struct Change: Sendable {
        public let record: MetricsRecord
        public let cause: Cause?

        public var user: String { record.user }
    }

    /// The aggregates by user, as ``SequencedReplica`` applies metrics-ingest's events to them.
    public struct Aggregates: ReplicaModel {
        public private(set) var records: [String: MetricsRecord] = [:]

        public var count: Int { records.count }

        public static var topicPrefix: String { Topic.metricsPrefix }

        public func decodeEvent(_ payload: Data, codec: WireCodec) -> Envelope<MetricsChangedBody>? {
            try? codec.decode(Envelope<MetricsChangedBody>.self, from: payload)
        }

        public static func position(of event: Envelope<MetricsChangedBody>) -> SequencePosition {
            SequencePosition(epoch: event.body.epoch, sequence: event.body.sequence)
        }

        public static func position(of snapshot: MetricsSnapshotBody) -> SequencePosition {
            SequencePosition(epoch: snapshot.epoch, sequence: snapshot.sequence)
        }

        public mutating func apply(_ event: Envelope<MetricsChangedBody>) -> [Change] {
            records[event.body.user] = event.body.record
            return [Change(record: event.body.record, cause: Cause(id: event.body.causedBy, trace: event.trace))]
        }

        public mutating func replace(with snapshot: MetricsSnapshotBody) -> [Change] {
            let users = Set(snapshot.aggregates.map(\.user))
            records = records.filter { users.contains($0.key) }
            return snapshot.aggregates.compactMap { record in
                guard records[record.user] != record else { return nil }
                records[record.user] = record
                return Change(record: record, cause: nil)
            }
        }
    }

    private let engine: SequencedReplica<Aggregates>

    /// `onChange` gets the aggregates each event or snapshot changed.
    public init(
        bus: Bus, eventsEndpoint: String, snapshotEndpoint: String, logger: Logger, onChange: @escaping ([Change]) -> Void
    ) throws {
        engine = try SequencedReplica(
            Aggregates(), bus: bus, eventsEndpoint: eventsEndpoint, snapshotEndpoint: snapshotEndpoint, logger: logger,
            onChange: onChange)
    }

    public var records: [String: MetricsRecord] { engine.model.records }
    public var sequence: UInt64 { engine.sequence }
    public var snapshotCount: Int { engine.snapshotCount }
    public var isSynced: Bool { engine.isSynced }
    /// Where the replica stands in its owner's stream while it follows it (``SequencedReplica/followingPosition(at:)``).
    public func followingPosition(at now: Date) -> SequencePosition? { engine.followingPosition(at: now) }

    /// The user's aggregate with its version; nil for a user metrics-ingest has never measured.
    public func record(user: String) -> MetricsRecord? {
        engine.model.records[user]
    }

}
