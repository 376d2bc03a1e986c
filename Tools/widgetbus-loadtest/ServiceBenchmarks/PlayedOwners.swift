import BusRuntime
import Foundation
import WidgetBusProtocol
import WidgetDomain
import ZeroMQ

/// intent-handler's and timeline-service's endpoints as push-gateway's benchmark plays them: each
/// user has one device token covering JitterWidget, and a Jitter widget whose scores change with
/// every change published. Snapshot requests are answered with the tokens and the latest
/// timelines; `TimelineChanged` events follow one sequence in one epoch. Owned by one thread.
final class PlayedOwners {
    private let context: ZMQContext
    private let stateEvents: ZMQSocket
    private let stateSnapshots: ZMQSocket
    private let timelineEvents: ZMQSocket
    private let timelineSnapshots: ZMQSocket
    private let codec = WireCodec()
    private let epoch = PublisherEpoch.random()
    private let users: [String]
    /// Each user's latest published timeline, and the change that built it.
    private var timelines: [TimelineBody]
    private var changesMade: [Int]
    private var sequence: UInt64 = 0

    init(environment: [String: String], users count: Int) throws {
        let context = try ZMQContext()
        self.context = context
        func bind(_ type: ZMQSocketType, _ endpoint: BusEndpoint) throws -> ZMQSocket {
            let socket = try ZMQSocket(context: context, type: type)
            try socket.setLinger(milliseconds: 0)
            try socket.setSendHighWaterMark(0)
            try socket.bind(endpoint.resolve(in: environment))
            return socket
        }
        stateEvents = try bind(.pub, .stateEvents)
        stateSnapshots = try bind(.router, .stateSnapshot)
        timelineEvents = try bind(.pub, .timelineEvents)
        timelineSnapshots = try bind(.router, .timelines)
        users = (0..<count).map { "pushbench-\($0)" }
        changesMade = Array(repeating: 0, count: count)
        timelines = []
        for user in users.indices { timelines.append(try timeline(of: user)) }
    }

    func close() {
        for socket in [stateEvents, stateSnapshots, timelineEvents, timelineSnapshots] { socket.close() }
    }

    /// Publishes `count` changes round-robin over the users, answering snapshot requests between.
    func publishChanges(_ count: Int) throws {
        for index in 0..<count {
            let user = index % users.count
            changesMade[user] += 1
            timelines[user] = try timeline(of: user)
            sequence += 1
            let event = Envelope(
                type: MessageType.timelineChanged.rawValue, user: users[user],
                body: TimelineChangedBody(epoch: epoch, sequence: sequence, causedBy: nil, timeline: timelines[user]))
            _ = try timelineEvents.send([Data(Topic.timeline(kind: .jitter, user: users[user]).utf8), try codec.encode(event)])
            if index.isMultiple(of: 256) { try answerSnapshotRequests() }
        }
    }

    /// Answers snapshot requests until `condition` holds (checked every 50 ms), or throws after `timeout` seconds.
    func serve(until what: String, timeout: TimeInterval, _ condition: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() {
            guard Date() < deadline else { throw ValidationFailure("timed out waiting until \(what)") }
            for _ in 0..<10 {
                try answerSnapshotRequests()
                usleep(5_000)
            }
        }
    }

    private func answerSnapshotRequests() throws {
        while let frames = try stateSnapshots.receiveMessage(dontWait: true) {
            guard let id = frames.last.flatMap({ JSONFieldScanner($0).string("id") }) else { continue }
            let tokens = users.map { user in
                UserPushTokens(
                    user: user, tokens: [WidgetPushToken(token: Self.token(of: user), environment: .production, kinds: [.jitter])], version: 1)
            }
            let reply = try codec.reply(
                to: id, user: nil, type: .snapshotReply, body: SnapshotBody(epoch: epoch, sequence: 1, states: [], pushTokens: tokens))
            _ = try stateSnapshots.send(Array(frames.dropLast()) + [reply])
        }
        while let frames = try timelineSnapshots.receiveMessage(dontWait: true) {
            guard let id = frames.last.flatMap({ JSONFieldScanner($0).string("id") }) else { continue }
            let reply = try codec.reply(
                to: id, user: nil, type: .timelineSnapshotReply, body: TimelineSnapshotBody(epoch: epoch, sequence: sequence, timelines: timelines))
            _ = try timelineSnapshots.send(Array(frames.dropLast()) + [reply])
        }
    }

    /// `user`'s Jitter widget after its changes so far: scores that differ with each.
    private func timeline(of user: Int) throws -> TimelineBody {
        let now = Date()
        var context = ReduceContext(now: now, timeZone: .gmt, random: RandomSource(SeededRandom(seed: UInt64(user))))
        let scores = JitterScoresUpdate(crashRiskScore: changesMade[user] % 100, focusScore: 50, currentCaffeineLevel: 100)
        let state = try WidgetState.initial(for: .jitter).reduce(.jitter(.updateScores(scores)), context: &context).state
        return TimelineBody(
            kind: .jitter, user: users[user], stateVersion: UInt64(changesMade[user] + 1), timeZone: "UTC", generatedAt: now,
            timeline: state.timeline(for: .jitter, now: now, timeZone: .gmt))
    }

    /// A token of 32 bytes, the user's own.
    static func token(of user: String) -> String {
        var hasher = SeededRandom(seed: UInt64(truncatingIfNeeded: user.utf8.reduce(5381) { ($0 << 5) &+ $0 &+ Int($1) }))
        return (0..<4).map { _ in String(format: "%016llx", hasher.next()) }.joined()
    }

    /// A free TCP port on loopback, as the kernel gives one to a socket bound to port 0.
    static func freeLoopbackPort() throws -> Int {
        let context = try ZMQContext()
        let socket = try ZMQSocket(context: context, type: .router)
        defer { socket.close() }
        try socket.bind("tcp://127.0.0.1:*")
        return Int(try socket.lastEndpoint.split(separator: ":").last!)!
    }
}

/// A benchmark that could not go on.
struct ValidationFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension Process {
    /// Starts `executable` with `environment`, its output the caller's.
    static func start(_ executable: URL, environment: [String: String]) throws -> Process {
        let process = Process()
        process.executableURL = executable
        process.environment = environment
        try process.run()
        return process
    }
}
