import BusRuntime
import Foundation
import ServiceSupport
import WidgetBusProtocol
import WidgetDomain
import ZeroMQ

#if canImport(Glibc)
import Glibc
#endif

/// How a step offers load.
enum LoadShape: Sendable {
    /// Open loop: `rate` intents per second on a fixed schedule, whatever the replies; latency is
    /// measured from each intent's *scheduled* time, so a server that falls behind is charged for
    /// the queue it builds (no coordinated omission).
    case open(rate: Double)
    /// Closed loop: `inFlight` requests outstanding; each reply releases the next request.
    case closed(inFlight: Int)
}

/// What happened to one intent.
struct IntentRecord: Sendable {
    enum Outcome: Sendable {
        case pending
        /// Committed at this state version: a timeline at this version or later is expected.
        case changed(UInt64)
        /// Answered with the state as it was (no new version, so no timeline is published).
        case unchanged
        case error(String)
        case timedOut
    }

    var id: String
    var key: UserApp
    var widget: LoadWidget
    var type: MessageType
    /// When the intent was due (open loop) or sent (closed loop): latencies start here.
    var scheduled: ContinuousClock.Instant
    var sent: ContinuousClock.Instant
    var replied: ContinuousClock.Instant?
    var outcome: Outcome = .pending
}

/// The intents of one step, with the step's time frame.
struct StepRecords: Sendable {
    var shape: LoadShape
    /// Open loop: the intents the schedule held (fewer are sent when every user is waiting for a reply).
    var scheduled: Int?
    var started: ContinuousClock.Instant
    var duration: Duration
    /// The first phase of an open loop with a recovery phase after it; `duration` otherwise.
    var loadDuration: Duration
    var lastSend: ContinuousClock.Instant
    var records: [IntentRecord]
}

/// Sends the load: owns the DEALER sockets connected to intent-handler's ROUTERs, one per shard
/// (``ShardDealers``; frames `["", payload]`, so replies come back as `["", reply]`, many in
/// flight), and the simulated users. Created, used and dropped on one dedicated thread.
final class IntentDriver {
    private let dealers: ShardDealers
    private let endpoint: String
    private let encoder = WireCodec()
    private let decoder = JSONDecoder()
    private let runID: String
    private let timeout: Duration
    private var users: [SimulatedUser]
    private var idle: [Int]
    private var random: SeededRandom
    private let mix: LoadMix
    private var counter = 0

    init(context: ZMQContext, endpoint: String, runID: String, userPrefix: String, users: Int, mix: LoadMix,
         timeout: Duration, seed: UInt64) throws {
        dealers = try ShardDealers(context: context, endpoint: endpoint)
        self.endpoint = endpoint
        self.runID = runID
        self.timeout = timeout
        self.users = (0..<users).map { SimulatedUser(name: userPrefix + String($0)) }
        idle = Array(0..<users)
        random = SeededRandom(seed: seed)
        self.mix = mix
    }

    // MARK: - Set-up

    /// How long a set-up message refused `unavailable` (intent-handler overloaded, or holding
    /// intents while timeline-service catches up) waits before it is sent again, with its id.
    static let setupResendDelay: Duration = .milliseconds(250)
    /// How often one set-up message is sent before its refusal ends the run: refused for about
    /// ten seconds, intent-handler is not catching up.
    static let setupAttempts = 40

    /// Sends every user's set-up messages (closed loop, `window` in flight) and returns the state
    /// versions they committed, so the caller can wait for their timelines. A message refused
    /// `unavailable` was not handled: it is sent again, as any client would, after
    /// ``setupResendDelay``, up to ``setupAttempts`` times in all.
    func setUp(window: Int) throws -> [UserApp: UInt64] {
        var expected: [UserApp: UInt64] = [:]
        var inFlight: [String: (user: Int, message: PlannedMessage)] = [:]
        var refused: [(id: String, user: Int, message: PlannedMessage, due: ContinuousClock.Instant)] = []
        var attempts: [String: Int] = [:]  // by id, for the messages refused so far
        var next = 0  // users are set up in turn, one message each per pass
        var remaining = users.count * LoadWorkload.setupCount
        var lastReply = ContinuousClock.now
        while remaining > 0 {
            while inFlight.count < window, let resend = refused.first, resend.due <= .now {
                refused.removeFirst()
                try send(id: resend.id, user: resend.user, message: resend.message)
                inFlight[resend.id] = (resend.user, resend.message)
            }
            while inFlight.count < window, let user = nextUserNeedingSetup(from: &next) {
                let message = LoadWorkload.setup(step: users[user].setupDone, for: users[user])
                let id = nextID("setup")
                try send(id: id, user: user, message: message)
                users[user].busy = true
                inFlight[id] = (user, message)
            }
            guard try dealers.waitForReplies(until: .now + .milliseconds(100)) else {
                if ContinuousClock.now - lastReply > timeout {
                    throw LoadTestError("no reply from intent-handler at \(endpoint) within \(timeout): is it running?")
                }
                continue
            }
            while let (reply, _) = try receiveReply() {
                guard let id = reply.inReplyTo, let (user, message) = inFlight.removeValue(forKey: id) else { continue }
                dealers.forget(id)
                lastReply = .now
                if reply.body?.code == ErrorCode.unavailable.rawValue, attempts[id, default: 1] < Self.setupAttempts {
                    attempts[id, default: 1] += 1
                    refused.append((id, user, message, .now + Self.setupResendDelay))
                    continue
                }
                attempts[id] = nil
                if let code = reply.body?.code {
                    throw LoadTestError(
                        "set-up \(message.type.rawValue) for \(users[user].name) refused: \(code): \(reply.body?.message ?? "")")
                }
                LoadWorkload.apply(reply, of: message, to: &users[user])
                if let app = reply.body?.app, let version = reply.body?.version {
                    let key = UserApp(user: user, app: app)
                    expected[key] = max(expected[key, default: 0], version)
                    users[user].versions[app] = max(users[user].versions[app, default: 0], version)
                }
                users[user].setupDone += 1
                users[user].busy = false
                remaining -= 1
            }
        }
        return expected
    }

    private func nextUserNeedingSetup(from next: inout Int) -> Int? {
        for _ in 0..<users.count {
            let user = next
            next = (next + 1) % users.count
            if !users[user].busy, users[user].setupDone < LoadWorkload.setupCount { return user }
        }
        return nil
    }

    // MARK: - Load

    /// Offers load of `shape` for `duration`, then waits (up to the timeout) for the replies
    /// still outstanding. Every intent goes to an idle user picked at random. `report` is given
    /// the step's progress every tenth of a second.
    func run(
        _ shape: LoadShape, for loadDuration: Duration, then recovery: LoadTestPlan.Recovery? = nil, step: Int,
        report: (StepProgress) -> Void = { _ in }
    ) throws -> StepRecords {
        var records: [IntentRecord] = []
        var inFlight: [String: Int] = [:]  // request id → index in records
        let started = ContinuousClock.now + .milliseconds(5)
        let duration = loadDuration + (recovery?.duration ?? .zero)
        let end = started + duration
        var lastSend = started
        var nextTimeoutCheck = started + .milliseconds(100)
        var progress = StepProgress(started: started)

        let total: Int
        let rate: Double
        /// Intents of the open loop's first phase, at `rate`; the rest are at the recovery's rate.
        var firstPhase = 0
        switch shape {
        case .open(let offered):
            rate = offered
            firstPhase = Int((offered * loadDuration.asSeconds).rounded())
            total = firstPhase + Int(((recovery?.rate ?? 0) * (recovery?.duration.asSeconds ?? 0)).rounded())
        case .closed:
            rate = 0
            total = .max
        }

        /// The i-th intent of an open loop is due at start + i / rate, or in the recovery phase at
        /// its start + (i - firstPhase) / its rate.
        func scheduledTime(_ index: Int) -> ContinuousClock.Instant {
            if index >= firstPhase, let recovery {
                return started + loadDuration + .nanoseconds(Int64((Double(index - firstPhase) * 1e9 / recovery.rate).rounded()))
            }
            return started + .nanoseconds(Int64((Double(index) * 1e9 / rate).rounded()))
        }

        func sendNext(scheduled: ContinuousClock.Instant?) throws -> Bool {
            guard !idle.isEmpty else { return false }
            let pick = Int.random(in: 0..<idle.count, using: &random)
            let user = idle[pick]
            idle.swapAt(pick, idle.count - 1)
            idle.removeLast()
            let widget = mix.pick(using: &random)
            let message = LoadWorkload.next(widget, for: &users[user], random: &random)
            let id = nextID("s\(step)")
            let now = try send(id: id, user: user, message: message)
            users[user].busy = true
            inFlight[id] = records.count
            records.append(
                IntentRecord(
                    id: id, key: UserApp(user: user, app: widget.app), widget: widget, type: message.type,
                    scheduled: scheduled ?? now, sent: now))
            lastSend = now
            progress.sent += 1
            return true
        }

        var sent = 0
        while true {
            let now = ContinuousClock.now
            let sending = now < end + .milliseconds(1) && sent < total
            if sending {
                switch shape {
                case .open:
                    // Everything due by now, each stamped with its own scheduled time.
                    while sent < total, scheduledTime(sent) <= now, try sendNext(scheduled: scheduledTime(sent)) { sent += 1 }
                case .closed(let window):
                    while now < end, inFlight.count < window, try sendNext(scheduled: nil) { sent += 1 }
                }
            } else if inFlight.isEmpty {
                break
            }
            if now >= nextTimeoutCheck {
                progress.timeouts += expire(&inFlight, &records, now: now)
                report(progress)
                nextTimeoutCheck = now + .milliseconds(100)
                if !sending, inFlight.isEmpty { break }
            }
            var wakeUp = nextTimeoutCheck
            if sending {
                switch shape {
                // With every user waiting for a reply, only a reply can let the next intent go.
                case .open: if sent < total, !idle.isEmpty { wakeUp = min(wakeUp, scheduledTime(sent)) }
                case .closed: wakeUp = min(wakeUp, end)
                }
            }
            guard try dealers.waitForReplies(until: wakeUp) else { continue }
            while let (reply, at) = try receiveReply() {
                guard let id = reply.inReplyTo, let index = inFlight.removeValue(forKey: id) else { continue }
                dealers.forget(id)
                let user = records[index].key.user
                records[index].replied = at
                if let code = reply.body?.code {
                    records[index].outcome = .error(code)
                } else if let app = reply.body?.app, let version = reply.body?.version {
                    // A version no higher than one already seen: the state did not change.
                    if version > users[user].versions[app, default: 0] {
                        users[user].versions[app] = version
                        records[index].outcome = .changed(version)
                    } else {
                        records[index].outcome = .unchanged
                    }
                } else {
                    records[index].outcome = .error("unexpected_reply_\(reply.type)")
                }
                let failed = if case .error = records[index].outcome { true } else { false }
                progress.recordReply(after: at - records[index].scheduled, failed: failed)
                let message = PlannedMessage(widget: records[index].widget, type: records[index].type, body: .null)
                LoadWorkload.apply(reply, of: message, to: &users[user])
                release(user)
            }
        }
        return StepRecords(
            shape: shape, scheduled: rate > 0 ? total : nil, started: started, duration: duration, loadDuration: loadDuration,
            lastSend: lastSend, records: records)
    }

    /// Intents unanswered for longer than the timeout count as timed out; their users move on
    /// (a late reply is then ignored). Returns how many timed out.
    private func expire(_ inFlight: inout [String: Int], _ records: inout [IntentRecord], now: ContinuousClock.Instant) -> Int {
        var expired = 0
        for (id, index) in inFlight where now - records[index].sent > timeout {
            records[index].outcome = .timedOut
            inFlight.removeValue(forKey: id)
            dealers.forget(id)
            release(records[index].key.user)
            expired += 1
        }
        return expired
    }

    private func release(_ user: Int) {
        guard users[user].busy else { return }
        users[user].busy = false
        idle.append(user)
    }

    // MARK: - Socket

    private func nextID(_ tag: String) -> String {
        counter += 1
        return "lt-\(runID)-\(tag)-\(counter)"
    }

    @discardableResult
    private func send(id: String, user: Int, message: PlannedMessage) throws -> ContinuousClock.Instant {
        let payload = try encoder.encode(Envelope(id: id, type: message.type.rawValue, user: users[user].name, body: message.body))
        let now = ContinuousClock.now
        try dealers.send(id: id, user: users[user].name, payload: payload)
        return now
    }

    /// One reply, decoded, with its arrival time; nil when none is waiting.
    private func receiveReply() throws -> (LoadTestReply, ContinuousClock.Instant)? {
        guard let (payload, at) = try dealers.receive() else { return nil }
        if let reply = try? decoder.decode(LoadTestReply.self, from: payload) { return (reply, at) }
        // Not what a reply should look like: an error for the request it names, if any.
        let header = try? decoder.decode(EnvelopeHeader.self, from: payload)
        return (LoadTestReply(type: header?.type ?? "?", inReplyTo: header?.inReplyTo, body: .init(code: "undecodable_reply")), at)
    }
}
