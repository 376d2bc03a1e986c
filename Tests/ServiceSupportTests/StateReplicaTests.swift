import Foundation
import Logging
import Testing
import WidgetBusProtocol
import WidgetDomain
import ZeroMQ

@testable import ServiceSupport

/// StateReplica against a scripted owner: a real PUB socket and a real ROUTER answering
/// snapshots, so the Clone-pattern rules are checked message by message.
@Suite(.serialized)
struct StateReplicaTests {
    /// Plays intent-handler: publishes chosen events and answers snapshot requests.
    final class ScriptedOwner {
        let context: ZMQContext
        let publisher: ZMQSocket
        let snapshots: ZMQSocket
        let eventsEndpoint: String
        let snapshotEndpoint: String
        let codec = WireCodec()
        var snapshotRequests = 0
        /// The epoch of the owner's current start; a test sets another to play a restart.
        var epoch = "00000000000000a1"

        init() throws {
            context = try ZMQContext()
            publisher = try ZMQSocket(context: context, type: .pub)
            try publisher.setLinger(milliseconds: 0)
            try publisher.bind("tcp://127.0.0.1:*")
            eventsEndpoint = try publisher.lastEndpoint
            snapshots = try ZMQSocket(context: context, type: .router)
            try snapshots.setLinger(milliseconds: 0)
            try snapshots.bind("tcp://127.0.0.1:*")
            snapshotEndpoint = try snapshots.lastEndpoint
        }

        deinit {
            publisher.close()
            snapshots.close()
            context.terminate()
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

        /// Answers one pending snapshot request (waiting up to a second for it).
        func answerSnapshot(_ snapshot: SnapshotBody) throws -> Bool {
            let ready = try ZMQPoller.poll([(snapshots, .readable)], timeoutMilliseconds: 1_000)
            guard ready[0].contains(.readable), let frames = try snapshots.receiveMessage() else { return false }
            let message = RoutedMessage(frames: frames)
            let request = try Request.decode(try #require(message.payload), codec: codec)
            snapshotRequests += 1
            try snapshots.send(message.reply(try codec.reply(to: request.id, user: nil, type: .snapshotReply, body: snapshot)))
            return true
        }
    }

    /// Polls the replica until `condition` holds or a second passes; returns the changes seen.
    func pump(_ replica: StateReplica, until condition: () -> Bool) throws -> [StateReplica.Change] {
        var changes: [StateReplica.Change] = []
        let deadline = Date().addingTimeInterval(2)
        while !condition(), Date() < deadline {
            let ready = try ZMQPoller.poll(replica.pollItems, timeoutMilliseconds: 20)
            changes += try replica.handle(ready: ready[...])
        }
        return changes
    }

    func makeReplica(_ owner: ScriptedOwner, context: ZMQContext) throws -> StateReplica {
        try StateReplica(
            context: context, eventsEndpoint: owner.eventsEndpoint, snapshotEndpoint: owner.snapshotEndpoint,
            codec: WireCodec(), logger: Logger(label: "test"))
    }

    /// A replica synced from `owner`'s snapshot at `sequence`, once its subscription has reached
    /// the owner's publisher.
    func withReplicaSynced(at sequence: UInt64, states: [StateRecord], _ body: (ScriptedOwner, StateReplica) throws -> Void) throws {
        let owner = try ScriptedOwner()
        let context = try ZMQContext()
        defer { context.terminate() }
        let replica = try makeReplica(owner, context: context)
        defer { replica.close() }
        #expect(try owner.answerSnapshot(SnapshotBody(epoch: owner.epoch, sequence: sequence, states: states)))
        _ = try pump(replica) { replica.isSynced }
        usleep(200_000)  // the subscription reaches the publisher
        try body(owner, replica)
    }

    @Test func startsFromTheSnapshotAndAppliesOnlyNewerEvents() throws {
        let owner = try ScriptedOwner()
        let context = try ZMQContext()
        defer { context.terminate() }
        let replica = try makeReplica(owner, context: context)
        defer { replica.close() }

        #expect(!replica.isSynced)
        #expect(try owner.answerSnapshot(SnapshotBody(epoch: owner.epoch, sequence: 5, states: [ScriptedOwner.record("ann", version: 5)])))
        var changes = try pump(replica) { replica.isSynced }
        #expect(replica.sequence == 5)
        #expect(changes.map(\.user) == ["ann"])

        usleep(200_000)  // the subscription reaches the publisher
        try owner.publish(sequence: 5, user: "old")  // already in the snapshot: ignored
        try owner.publish(sequence: 6, user: "ben")
        changes = try pump(replica) { replica.sequence == 6 }
        #expect(changes.map(\.user) == ["ben"])
        #expect(changes.first?.causedBy == "intent-6")
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
        #expect(body.profile == profile)

        let everything = StateReplica.States(holdsStates: true)
        #expect(everything.snapshotPrefix == Topic.statePrefix)
        guard case .state(let state)? = everything.decodeEvent(stateEvent, codec: codec) else {
            Issue.record("a state event is read in full")
            return
        }
        #expect(state.record == ScriptedOwner.record("ann", version: 7))
    }

    @Test func aGapInSequenceNumbersTriggersAFreshSnapshot() throws {
        try withReplicaSynced(at: 1, states: [ScriptedOwner.record("ann", version: 1)]) { owner, replica in

            try owner.publish(sequence: 3, user: "cat")  // 2 was lost
            _ = try pump(replica) { !replica.isSynced }
            #expect(!replica.isSynced, "a gap must trigger a re-snapshot")
            #expect(try owner.answerSnapshot(SnapshotBody(epoch: owner.epoch, sequence: 3, states: [
                ScriptedOwner.record("ann", version: 1), ScriptedOwner.record("dan", version: 2), ScriptedOwner.record("cat", version: 3),
            ])))
            let changes = try pump(replica) { replica.isSynced }
            #expect(replica.sequence == 3)
            #expect(Set(changes.map(\.user)) == ["dan", "cat"], "only what differs is reported")
            #expect(owner.snapshotRequests == 2)
        }
    }

    @Test func aHeartbeatAheadOfTheReplicaRevealsALostLastEvent() throws {
        try withReplicaSynced(at: 4, states: []) { owner, replica in

            try owner.heartbeat(sequence: 4)
            _ = try pump(replica) { false }
            #expect(replica.isSynced, "a heartbeat at the replica's sequence changes nothing")

            try owner.heartbeat(sequence: 7)
            _ = try pump(replica) { !replica.isSynced }
            #expect(!replica.isSynced)
            #expect(try owner.answerSnapshot(SnapshotBody(epoch: owner.epoch, sequence: 7, states: [ScriptedOwner.record("eve", version: 7)])))
            _ = try pump(replica) { replica.isSynced }
            #expect(replica.record(user: "eve", app: .tensionCheck)?.version == 7)
        }
    }

    @Test func anEventOfAnotherEpochIsAnOwnerRestartNotTheNextEvent() throws {
        try withReplicaSynced(at: 5, states: [ScriptedOwner.record("ann", version: 5)]) { owner, replica in

            owner.epoch = "00000000000000b2"  // restarted with its sequence reset: 6 here is not the 6 that follows 5
            try owner.publish(sequence: 6, user: "ghost")
            _ = try pump(replica) { !replica.isSynced }
            #expect(!replica.isSynced, "another epoch must trigger a re-snapshot")
            #expect(replica.record(user: "ghost", app: .tensionCheck) == nil, "an event of another epoch is not applied on its own")

            #expect(try owner.answerSnapshot(SnapshotBody(epoch: owner.epoch, sequence: 6, states: [ScriptedOwner.record("ghost", version: 6)])))
            let changes = try pump(replica) { replica.isSynced }
            #expect(replica.sequence == 6)
            #expect(changes.map(\.user).sorted() == ["ghost"])
            #expect(replica.record(user: "ann", app: .tensionCheck) == nil, "the restarted owner's snapshot is the whole truth")

            try owner.publish(sequence: 7, user: "ben")
            _ = try pump(replica) { replica.sequence == 7 }
            #expect(replica.record(user: "ben", app: .tensionCheck)?.version == 7, "the new epoch's events follow its snapshot")
        }
    }

    @Test func aHeartbeatOfAnotherEpochTriggersAFreshSnapshotAtTheSameSequence() throws {
        try withReplicaSynced(at: 4, states: []) { owner, replica in

            owner.epoch = "00000000000000c3"
            try owner.heartbeat(sequence: 4)
            _ = try pump(replica) { !replica.isSynced }
            #expect(!replica.isSynced, "the same sequence in another epoch is another history")
            #expect(try owner.answerSnapshot(SnapshotBody(epoch: owner.epoch, sequence: 4, states: [ScriptedOwner.record("eve", version: 4)])))
            _ = try pump(replica) { replica.isSynced }
            #expect(replica.record(user: "eve", app: .tensionCheck)?.version == 4)
        }
    }

    @Test func anUnansweredSnapshotRequestIsRepeated() throws {
        let silent = try ScriptedOwner()
        let context = try ZMQContext()
        defer { context.terminate() }
        let replica = try makeReplica(silent, context: context)
        defer { replica.close() }

        var requests = 0
        let deadline = Date().addingTimeInterval(StateReplica.snapshotTimeout + 1.5)
        while Date() < deadline, requests < 2 {
            _ = try replica.handle(ready: [ZMQPollEvents(), ZMQPollEvents()][...])
            let ready = try ZMQPoller.poll([(silent.snapshots, .readable)], timeoutMilliseconds: 50)
            if ready[0].contains(.readable), try silent.snapshots.receiveMessage() != nil { requests += 1 }
        }
        #expect(requests == 2, "the replica must ask again after \(StateReplica.snapshotTimeout) s of silence")
        #expect(!replica.isSynced)
    }

    @Test func aSilentOwnerIsAskedAgainAtEverLongerIntervals() throws {
        let silent = try ScriptedOwner()
        let context = try ZMQContext()
        defer { context.terminate() }
        let replica = try makeReplica(silent, context: context)
        defer { replica.close() }
        /// The snapshot requests the replica sends when its clock reads `start + seconds`.
        func requests(at seconds: TimeInterval, from start: Date) throws -> Int {
            _ = try replica.handle(ready: [ZMQPollEvents(), ZMQPollEvents()][...], now: start.addingTimeInterval(seconds))
            var count = 0
            while try ZMQPoller.poll([(silent.snapshots, .readable)], timeoutMilliseconds: 50)[0].contains(.readable),
                try silent.snapshots.receiveMessage() != nil
            {
                count += 1
            }
            return count
        }
        let start = Date()
        #expect(try requests(at: 0, from: start) == 1, "the request sent at start, waiting 2 s")
        // Each timeout doubles the wait: 4, 8, 16, 32 s, then 32 s again (the longest).
        for (seconds, asked) in [
            (2.1, 1), (6.0, 0), (6.2, 1), (14.1, 0), (14.3, 1), (30.2, 0), (30.4, 1), (62.3, 0), (62.5, 1), (94.4, 0), (94.6, 1),
        ] {
            #expect(try requests(at: seconds, from: start) == asked, "at \(seconds) s")
        }
    }
}
