import Foundation
import Logging
import ReplicatedWidgets
import Testing
import WidgetBusProtocol
import WidgetBusTestSupport
import WidgetDomain
import ZeroMQ

@testable import BusRuntime

/// MetricsReplica against a scripted metrics-ingest: the Clone-pattern engine it shares with the
/// state replica, driven through metrics events and snapshots.
@Suite(.serialized)
struct MetricsReplicaTests {
    final class ScriptedMetricsOwner {
        let publisher: ZMQSocket
        let snapshots: ZMQSocket
        let eventsEndpoint = "inproc://metrics-owner-events-\(UUID().uuidString)"
        let snapshotEndpoint = "inproc://metrics-owner-snapshots-\(UUID().uuidString)"
        let codec = WireCodec()
        let epoch = "00000000000000d4"

        /// Binds on `context`, the follower's bus context; ``close()`` before the bus closes.
        init(context: ZMQContext) throws {
            publisher = try ZMQSocket(context: context, type: .xpub)
            try publisher.setLinger(milliseconds: 0)
            try publisher.bind(eventsEndpoint)
            snapshots = try ZMQSocket(context: context, type: .router)
            try snapshots.setLinger(milliseconds: 0)
            try snapshots.bind(snapshotEndpoint)
        }

        func close() {
            publisher.close()
            snapshots.close()
        }

        static func aggregate(score: Int) -> MetricsAggregate {
            MetricsAggregate(latestStress: StressMeasurement(stressLevel: score, measuredAt: Date(timeIntervalSince1970: 1_795_339_800)))
        }

        func publish(sequence: UInt64, user: String, score: Int) throws {
            let body = MetricsChangedBody(epoch: epoch, sequence: sequence, causedBy: "push-\(sequence)", user: user, aggregate: Self.aggregate(score: score))
            try publisher.send([Data(Topic.metrics(user: user).utf8), try codec.encode(Envelope(type: MessageType.metricsChanged.rawValue, user: user, body: body))])
        }

        /// Answers one pending snapshot request (waiting up to a second for it) and returns its prefix.
        func answerSnapshot(_ snapshot: MetricsSnapshotBody) throws -> String? {
            guard try ZMQPoller.isReadable(snapshots, waitingMilliseconds: 1_000), let frames = try snapshots.receiveMessage()
            else { return nil }
            let message = RoutedMessage(frames: frames)
            let request = try MetricsRequest.decode(try #require(message.payload), codec: codec)
            try snapshots.send(message.reply(try codec.reply(to: request.id, user: nil, type: .metricsSnapshotReply, body: snapshot)))
            guard case .snapshot(let prefix) = request.body else { return nil }
            return prefix
        }
    }

    func pump(_ bus: Bus, _ log: ChangeLog<MetricsReplica.Change>, until condition: () -> Bool) throws -> [MetricsReplica.Change] {
        try bus.pump(until: condition)
        return log.take()
    }

    @Test func followsMetricsIngestThroughSnapshotsEventsAndGaps() throws {
        let bus = try Bus()
        defer { bus.close() }
        let owner = try ScriptedMetricsOwner(context: bus.context)
        defer { owner.close() }
        let log = ChangeLog<MetricsReplica.Change>()
        let replica = try MetricsReplica(
            bus: bus, eventsEndpoint: owner.eventsEndpoint, snapshotEndpoint: owner.snapshotEndpoint, logger: Logger(label: "test"),
            onChange: log.record)

        let ann = MetricsRecord(user: "ann", version: 2, aggregate: ScriptedMetricsOwner.aggregate(score: 20))
        #expect(try owner.answerSnapshot(MetricsSnapshotBody(epoch: owner.epoch, sequence: 2, aggregates: [ann])) == "metrics.")
        var changes = try pump(bus, log) { replica.isSynced }
        #expect(replica.sequence == 2 && replica.record(user: "ann") == ann)
        #expect(changes.map(\.user) == ["ann"] && changes[0].cause == nil)

        #expect(try owner.publisher.awaitSubscriptions(to: [Topic.metricsPrefix, Topic.heartbeat]), "the replica subscribed")
        try owner.publish(sequence: 2, user: "old", score: 1)  // already in the snapshot: ignored
        try owner.publish(sequence: 3, user: "ben", score: 55)
        changes = try pump(bus, log) { replica.sequence == 3 }
        #expect(changes.map(\.user) == ["ben"] && changes[0].cause?.id == "push-3")
        #expect(replica.record(user: "ben")?.aggregate.latestStress?.stressLevel == 55)
        #expect(replica.record(user: "old") == nil)

        try owner.publish(sequence: 5, user: "cat", score: 70)  // 4 was lost
        _ = try pump(bus, log) { !replica.isSynced }
        #expect(!replica.isSynced, "a gap must trigger a re-snapshot")
        let cat = MetricsRecord(user: "cat", version: 5, aggregate: ScriptedMetricsOwner.aggregate(score: 70))
        #expect(try owner.answerSnapshot(MetricsSnapshotBody(epoch: owner.epoch, sequence: 5, aggregates: [ann, cat])) != nil)
        changes = try pump(bus, log) { replica.isSynced }
        #expect(replica.sequence == 5)
        #expect(changes.map(\.user) == ["cat"], "only what differs is reported")
        #expect(replica.record(user: "ben") == nil, "what the owner no longer has is dropped")
    }
}
