import Foundation
import Logging
import ReplicatedWidgets
import ServiceSupport
import Testing
import WidgetBusProtocol
import WidgetBusTestSupport
import WidgetDomain
import ZeroMQ

@testable import BusRuntime

/// StateReplica against a scripted owner: a real PUB socket and a real ROUTER answering
/// snapshots, on `inproc://` sockets of the replica's own bus context, so the Clone-pattern rules
/// are checked message by message without a TCP port.
@Suite(.serialized)
struct StateReplicaTests {
    /// Plays intent-handler: publishes chosen events and answers snapshot requests.
    final class ScriptedOwner {
        let publisher: ZMQSocket
        let snapshots: ZMQSocket
        let eventsEndpoint = "inproc://state-owner-events-\(UUID().uuidString)"
        let snapshotEndpoint = "inproc://state-owner-snapshots-\(UUID().uuidString)"
        let codec = WireCodec()
        var snapshotRequests = 0
        /// The epoch of the owner's current start; a test sets another to play a restart.
        var epoch = "00000000000000a1"

        /// Binds on `context`, the follower's bus context (inproc needs one context); ``close()``
        /// before the bus closes.
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

        /// Waits until the replica's subscriptions (its states and the heartbeat) have reached the
        /// publisher: an event published earlier could be dropped.
        func awaitSubscriber() throws {
            #expect(try publisher.awaitSubscriptions(to: [Topic.statePrefix, Topic.heartbeat]), "the replica subscribed")
        }

        static func record(_ user: String, version: UInt64, phase: TensionCheckPhase = .picker) -> StateRecord {
            StateRecord(user: user, app: .tensionCheck, version: version, state: .tensionCheck(TensionCheckState(phase: phase)))
        }

        func publish(sequence: UInt64, user: String) throws {
            let body = StateChangedBody(epoch: epoch, sequence: sequence, causedBy: "intent-\(sequence)", record: Self.record(user, version: sequence))
            let payload = try codec.encode(Envelope(type: MessageType.stateChanged.rawValue, user: user, body: body))
            try publisher.send([Data(Topic.state(app: .tensionCheck, user: user).utf8), payload])
        }

        func heartbeat(sequence: UInt64) throws {
            let payload = try codec.encode(Envelope(type: MessageType.heartbeat.rawValue, body: HeartbeatBody(publisher: "scripted-owner", epoch: epoch, sequence: sequence)))
            try publisher.send([Data(Topic.heartbeat.utf8), payload])
        }

        /// Takes the snapshot requests that arrive within 50 ms of each other, unanswered, and counts them.
        func takeSnapshotRequests() throws -> Int {
            var count = 0
            while try ZMQPoller.isReadable(snapshots, waitingMilliseconds: 50), try snapshots.receiveMessage() != nil {
                count += 1
            }
            return count
        }

        /// Answers one pending snapshot request (waiting up to a second for it).
        func answerSnapshot(_ snapshot: SnapshotBody) throws -> Bool {
            guard try ZMQPoller.isReadable(snapshots, waitingMilliseconds: 1_000), let frames = try snapshots.receiveMessage()
            else { return false }
            let message = RoutedMessage(frames: frames)
            let request = try Request.decode(try #require(message.payload), codec: codec)
            snapshotRequests += 1
            try snapshots.send(message.reply(try codec.reply(to: request.id, user: nil, type: .snapshotReply, body: snapshot)))
            return true
        }
    }

    /// A replica on a bus of its own, the scripted owner it follows, and what it reported.
    final class Follower {
        let bus: Bus
        let owner: ScriptedOwner
        let replica: StateReplica
        let log = ChangeLog<StateReplica.Change>()

        init(clock: any WallClock = SystemClock()) throws {
            bus = try Bus(clock: clock)
            owner = try ScriptedOwner(context: bus.context)
            let log = log
            replica = try StateReplica(
                bus: bus, eventsEndpoint: owner.eventsEndpoint, snapshotEndpoint: owner.snapshotEndpoint, logger: Logger(label: "test"),
                onChange: log.record)
        }

        deinit {
            owner.close()
            bus.close()
        }
    }

    /// Runs the follower's bus until `condition` holds or two seconds pass; returns the changes seen.
    func pump(_ follower: Follower, until condition: () -> Bool) throws -> [StateReplica.Change] {
        try follower.bus.pump(until: condition)
        return follower.log.take()
    }

    /// A replica synced from `owner`'s snapshot at `sequence`, once its subscription has reached
    /// the owner's publisher.
    func withReplicaSynced(at sequence: UInt64, states: [StateRecord], _ body: (ScriptedOwner, Follower) throws -> Void) throws {
        let follower = try Follower()
        let owner = follower.owner
        #expect(try owner.answerSnapshot(SnapshotBody(epoch: owner.epoch, sequence: sequence, states: states)))
        _ = try pump(follower) { follower.replica.isSynced }
        try owner.awaitSubscriber()
        try body(owner, follower)
    }

    @Test func startsFromTheSnapshotAndAppliesOnlyNewerEvents() throws {
        let follower = try Follower()
        let owner = follower.owner
        let replica = follower.replica

        #expect(!replica.isSynced)
        #expect(try owner.answerSnapshot(SnapshotBody(epoch: owner.epoch, sequence: 5, states: [ScriptedOwner.record("ann", version: 5)])))
        var changes = try pump(follower) { replica.isSynced }
        #expect(replica.sequence == 5)
        #expect(changes.map(\.user) == ["ann"])

        try owner.awaitSubscriber()
        try owner.publish(sequence: 5, user: "old")  // already in the snapshot: ignored
        try owner.publish(sequence: 6, user: "ben")
        changes = try pump(follower) { replica.sequence == 6 }
        #expect(changes.map(\.user) == ["ben"])
        #expect(changes.first?.cause?.id == "intent-6")
        #expect(replica.record(user: "old", app: .tensionCheck) == nil)
    }

    @Test func aReplicaOfProfilesOnlyFollowsTheSequenceWithoutReadingStates() throws {
        let codec = WireCodec()
        let stateEvent = try codec.encode(Envelope(
            type: MessageType.stateChanged.rawValue, user: "ann",
            body: StateChangedBody(epoch: "e", sequence: 7, causedBy: "i7", record: ScriptedOwner.record("ann", version: 7))))
        let profile = UserProfile(user: "ann", timeZone: "Europe/Paris", version: 8)
        let profileEvent = try codec.encode(Envelope(
            type: MessageType.profileChanged.rawValue, user: "ann", body: ProfileChangedBody(epoch: "e", sequence: 8, causedBy: "i8", profile: profile)))

        let profilesOnly = StateReplica.States(holdsStates: false)
        #expect(profilesOnly.snapshotPrefix == Topic.profilePrefix)
        guard case .other(SequencePosition(epoch: "e", sequence: 7))? = profilesOnly.decodeEvent(stateEvent, codec: codec) else {
            Issue.record("a state event advances the sequence only")
            return
        }
        guard case .profile(let body)? = profilesOnly.decodeEvent(profileEvent, codec: codec) else {
            Issue.record("a profile event is read")
            return
        }
        #expect(body.body.profile == profile)

        let everything = StateReplica.States(holdsStates: true)
        #expect(everything.snapshotPrefix == Topic.statePrefix)
        guard case .state(let state)? = everything.decodeEvent(stateEvent, codec: codec) else {
            Issue.record("a state event is read in full")
            return
        }
        #expect(state.body.record == ScriptedOwner.record("ann", version: 7))
    }

    @Test func aGapInSequenceNumbersTriggersAFreshSnapshot() throws {
        try withReplicaSynced(at: 1, states: [ScriptedOwner.record("ann", version: 1)]) { owner, follower in
            let replica = follower.replica

            try owner.publish(sequence: 3, user: "cat")  // 2 was lost
            _ = try pump(follower) { !replica.isSynced }
            #expect(!replica.isSynced, "a gap must trigger a re-snapshot")
            #expect(try owner.answerSnapshot(SnapshotBody(epoch: owner.epoch, sequence: 3, states: [
                ScriptedOwner.record("ann", version: 1), ScriptedOwner.record("dan", version: 2), ScriptedOwner.record("cat", version: 3),
            ])))
            let changes = try pump(follower) { replica.isSynced }
            #expect(replica.sequence == 3)
            #expect(Set(changes.map(\.user)) == ["dan", "cat"], "only what differs is reported")
            #expect(owner.snapshotRequests == 2)
        }
    }

    @Test func aHeartbeatAheadOfTheReplicaRevealsALostLastEvent() throws {
        try withReplicaSynced(at: 4, states: []) { owner, follower in
            let replica = follower.replica

            try owner.heartbeat(sequence: 4)
            _ = try pump(follower) { false }
            #expect(replica.isSynced, "a heartbeat at the replica's sequence changes nothing")

            try owner.heartbeat(sequence: 3)
            _ = try pump(follower) { false }
            #expect(replica.isSynced, "nor one behind it: sent before the snapshot, which overtook it on its own socket")
            #expect(owner.snapshotRequests == 1)

            try owner.heartbeat(sequence: 7)
            _ = try pump(follower) { !replica.isSynced }
            #expect(!replica.isSynced)
            #expect(try owner.answerSnapshot(SnapshotBody(epoch: owner.epoch, sequence: 7, states: [ScriptedOwner.record("eve", version: 7)])))
            _ = try pump(follower) { replica.isSynced }
            #expect(replica.record(user: "eve", app: .tensionCheck)?.version == 7)
        }
    }

    @Test func anEventOfAnotherEpochIsAnOwnerRestartNotTheNextEvent() throws {
        try withReplicaSynced(at: 5, states: [ScriptedOwner.record("ann", version: 5)]) { owner, follower in
            let replica = follower.replica

            owner.epoch = "00000000000000b2"  // restarted with its sequence reset: 6 here is not the 6 that follows 5
            try owner.publish(sequence: 6, user: "ghost")
            _ = try pump(follower) { !replica.isSynced }
            #expect(!replica.isSynced, "another epoch must trigger a re-snapshot")
            #expect(replica.record(user: "ghost", app: .tensionCheck) == nil, "an event of another epoch is not applied on its own")

            #expect(try owner.answerSnapshot(SnapshotBody(epoch: owner.epoch, sequence: 6, states: [ScriptedOwner.record("ghost", version: 6)])))
            let changes = try pump(follower) { replica.isSynced }
            #expect(replica.sequence == 6)
            #expect(changes.map(\.user).sorted() == ["ghost"])
            #expect(replica.record(user: "ann", app: .tensionCheck) == nil, "the restarted owner's snapshot is the whole truth")

            try owner.publish(sequence: 7, user: "ben")
            _ = try pump(follower) { replica.sequence == 7 }
            #expect(replica.record(user: "ben", app: .tensionCheck)?.version == 7, "the new epoch's events follow its snapshot")
        }
    }

    @Test func aHeartbeatOfAnotherEpochTriggersAFreshSnapshotAtTheSameSequence() throws {
        try withReplicaSynced(at: 4, states: []) { owner, follower in
            let replica = follower.replica

            owner.epoch = "00000000000000c3"
            try owner.heartbeat(sequence: 4)
            _ = try pump(follower) { !replica.isSynced }
            #expect(!replica.isSynced, "the same sequence in another epoch is another history")
            #expect(try owner.answerSnapshot(SnapshotBody(epoch: owner.epoch, sequence: 4, states: [ScriptedOwner.record("eve", version: 4)])))
            _ = try pump(follower) { replica.isSynced }
            #expect(replica.record(user: "eve", app: .tensionCheck)?.version == 4)
        }
    }

    @Test func anUnansweredSnapshotRequestIsRepeated() throws {
        let clock = ManualClock()
        let follower = try Follower(clock: clock)
        let silent = follower.owner
        #expect(try silent.takeSnapshotRequests() == 1, "the request sent at start")

        clock.advance(by: StateReplica.snapshotTimeout - 0.1)
        try follower.bus.turn(waitingAtMost: 0)
        #expect(try silent.takeSnapshotRequests() == 0)
        clock.advance(by: 0.2)
        try follower.bus.turn(waitingAtMost: 0)
        #expect(try silent.takeSnapshotRequests() == 1, "the replica must ask again after \(StateReplica.snapshotTimeout) s of silence")
        #expect(!follower.replica.isSynced)
    }

    @Test func aSilentOwnerIsAskedAgainAtEverLongerIntervals() throws {
        let clock = ManualClock()
        let start = clock.now
        let follower = try Follower(clock: clock)
        let silent = follower.owner
        /// The snapshot requests the replica sends when its clock reads `start + seconds`.
        func requests(at seconds: TimeInterval) throws -> Int {
            clock.advance(by: start.addingTimeInterval(seconds).timeIntervalSince(clock.now))
            try follower.bus.turn(waitingAtMost: 0)
            return try silent.takeSnapshotRequests()
        }
        #expect(try requests(at: 0) == 1, "the request sent at start, waiting 2 s")
        // Each timeout doubles the wait: 4, 8, 16, 32 s, then 32 s again (the longest).
        for (seconds, asked) in [
            (2.1, 1), (6.0, 0), (6.2, 1), (14.1, 0), (14.3, 1), (30.2, 0), (30.4, 1), (62.3, 0), (62.5, 1), (94.4, 0), (94.6, 1),
        ] {
            #expect(try requests(at: seconds) == asked, "at \(seconds) s")
        }
    }
}
