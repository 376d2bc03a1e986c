import Foundation
import Testing
import WidgetBusProtocol
import WidgetBusTestSupport
import ZeroMQ

@testable import ServiceSupport
@testable import BusRuntime

/// The bus runtime on `inproc://` sockets of its own context, turn by turn, with a clock set by
/// hand: no process, no TCP port, no sleep.
@Suite struct BusTests {
    struct Refused: Error {}

    /// A socket of `type` on the bus's context connected to `endpoint`, which sends `count`
    /// payloads "0", "1", …
    func peer(_ type: ZMQSocketType, of bus: Bus, at endpoint: String, sending count: Int) throws -> ZMQSocket {
        let socket = try ZMQSocket(context: bus.context, type: type)
        try socket.setLinger(milliseconds: 0)
        try socket.connect(endpoint)
        for index in 0..<count { try socket.send([Data("\(index)".utf8)]) }
        return socket
    }

    /// The payloads `socket` has received, waiting up to a second for the first.
    func received(by socket: ZMQSocket) throws -> [String] {
        var payloads: [String] = []
        var wait = 1_000
        while try ZMQPoller.isReadable(socket, waitingMilliseconds: wait), let frames = try socket.receiveMessage(dontWait: true) {
            payloads.append(String(decoding: frames.last ?? Data(), as: UTF8.self))
            wait = 0
        }
        return payloads
    }

    @Test func repliesGoBackInOrderOneBoundedBatchPerTurn() throws {
        let bus = try Bus(clock: ManualClock())
        defer { bus.close() }
        var batches: [[String]] = []
        try bus.replies(at: "inproc://replies", batch: 3) { messages in
            let payloads = messages.map { String(decoding: $0.payload ?? Data(), as: UTF8.self) }
            batches.append(payloads)
            return payloads.map { Data("re \($0)".utf8) }
        }
        let client = try peer(.dealer, of: bus, at: "inproc://replies", sending: 7)
        defer { client.close() }

        for _ in 0..<3 { try bus.turn(waitingAtMost: 1) }
        #expect(batches == [["0", "1", "2"], ["3", "4", "5"], ["6"]])
        #expect(try received(by: client) == (0..<7).map { "re \($0)" })
    }

    @Test func aFloodOnOneSocketDoesNotStarveTheNext() throws {
        let bus = try Bus(clock: ManualClock())
        defer { bus.close() }
        var taken: [String: Int] = [:]
        try bus.pull(at: "inproc://flood", batch: 10) { taken["flood", default: 0] += $0.count }
        try bus.pull(at: "inproc://trickle", batch: 10) { taken["trickle", default: 0] += $0.count }
        let flood = try peer(.push, of: bus, at: "inproc://flood", sending: 500)
        let trickle = try peer(.push, of: bus, at: "inproc://trickle", sending: 1)
        defer { for socket in [flood, trickle] { socket.close() } }

        try bus.turn(waitingAtMost: 1)
        #expect(taken == ["flood": 10, "trickle": 1], "each socket gives at most its batch per turn, the quiet one too")
    }

    @Test func timersFireWhenTheClockReachesThemAfterTheTurnsMessages() throws {
        let clock = ManualClock()
        let bus = try Bus(clock: clock)
        defer { bus.close() }
        let start = clock.now
        var log: [String] = []
        var due: Date? = start.addingTimeInterval(5)
        bus.timer(dueAt: { due }) { now in
            log.append("once at +\(Int(now.timeIntervalSince(start)))")
            due = nil
        }
        bus.every(2) { now in log.append("every 2 s at +\(Int(now.timeIntervalSince(start)))") }
        try bus.pull(at: "inproc://samples", batch: 10) { log.append("\($0.count) pushed") }
        bus.afterMessages { _ in if log.last?.hasSuffix("pushed") == true { log.append("after the messages") } }

        try bus.turn(waitingAtMost: 0)
        #expect(log.isEmpty)
        clock.advance(by: 2)
        let pusher = try peer(.push, of: bus, at: "inproc://samples", sending: 2)
        defer { pusher.close() }
        try bus.turn(waitingAtMost: 1)
        #expect(log == ["2 pushed", "after the messages", "every 2 s at +2"])
        clock.advance(by: 3)
        try bus.turn(waitingAtMost: 0)
        #expect(
            log.suffix(2) == ["once at +5", "every 2 s at +5"],
            "due timers fire in the order they were declared, a late one once, counting its next interval from now")
    }

    @Test func aTimerDueLaterShortensTheWaitButDoesNotFireEarly() throws {
        let clock = ManualClock()
        let bus = try Bus(clock: clock)
        defer { bus.close() }
        var fired = 0
        bus.timer(dueAt: { clock.now.addingTimeInterval(0.01) }) { _ in fired += 1 }
        let before = ContinuousClock.now
        try bus.turn(waitingAtMost: 30)
        #expect(ContinuousClock.now - before < .seconds(10), "the wait ends when the timer is due, not at the limit")
        #expect(fired == 0, "the injected clock has not reached it")
    }

    @Test func aTimerDueByAMonotonicInstantFiresOnceItPassesWhateverTheWallClockDoes() throws {
        let clock = ManualClock()
        let bus = try Bus(clock: clock)
        defer { bus.close() }
        let due = ContinuousClock.now + .milliseconds(50)
        var firedAt: ContinuousClock.Instant?
        bus.timer(dueBy: { firedAt == nil ? due : nil }) { _ in firedAt = .now }
        clock.advance(by: 3600)
        try bus.turn(waitingAtMost: 0)
        #expect(firedAt == nil, "a step of the wall clock forward does not bring it due")
        clock.advance(by: -7200)
        while firedAt == nil, ContinuousClock.now < due + .seconds(10) { try bus.turn(waitingAtMost: 1) }
        let fired = try #require(firedAt, "a step back does not hold it")
        #expect(fired >= due)
    }

    /// A bus whose ROUTER at `endpoint` rests `pacing` after each batch and records the batches.
    func pacedReplies(on bus: Bus, at endpoint: String, pacing: TimeInterval) throws -> () -> [[String]] {
        var batches: [[String]] = []
        try bus.replies(at: endpoint, batch: 10, pacing: pacing) { messages in
            batches.append(messages.map { String(decoding: $0.payload ?? Data(), as: UTF8.self) })
            return messages.map { _ in nil }
        }
        return { batches }
    }

    @Test func aPacedSocketTakesAMessageAtOnceThenRestsSoThoseCloseBehindShareOneTurn() throws {
        let clock = ManualClock()
        let bus = try Bus(clock: clock)
        defer { bus.close() }
        let batches = try pacedReplies(on: bus, at: "inproc://paced", pacing: 5)
        var pulled = 0
        try bus.pull(at: "inproc://unpaced", batch: 10) { pulled += $0.count }
        let client = try peer(.dealer, of: bus, at: "inproc://paced", sending: 1)
        defer { client.close() }

        try bus.turn(waitingAtMost: 1)
        #expect(batches() == [["0"]], "a message after a quiet spell waits for nothing")

        for index in 1...3 { try client.send([Data("\(index)".utf8)]) }
        let pusher = try peer(.push, of: bus, at: "inproc://unpaced", sending: 2)
        defer { pusher.close() }
        clock.advance(by: 4.9)
        try bus.turn(waitingAtMost: 0)
        #expect(batches() == [["0"]], "messages that arrive during the rest wait for its end")
        #expect(pulled == 2, "a socket without pacing is taken meanwhile")

        clock.advance(by: 0.2)
        try bus.turn(waitingAtMost: 1)
        #expect(batches() == [["0"], ["1", "2", "3"]], "once it is over they are taken in one turn")
    }

    @Test func aRestEndingFarBeyondItsPacingIsOneTheClockSteppedBackAcrossAndIsOver() throws {
        let clock = ManualClock()
        let bus = try Bus(clock: clock)
        defer { bus.close() }
        let batches = try pacedReplies(on: bus, at: "inproc://stepped-back", pacing: 5)
        let client = try peer(.dealer, of: bus, at: "inproc://stepped-back", sending: 1)
        defer { client.close() }
        try bus.turn(waitingAtMost: 1)

        try client.send([Data("1".utf8)])
        clock.advance(by: -3600)
        try bus.turn(waitingAtMost: 1)
        #expect(batches() == [["0"], ["1"]], "an hour back would otherwise be an hour's rest")
    }

    @Test func aTurnWaitsOutARestToItsEndNotToItsLimit() throws {
        let bus = try Bus()  // the system clock: this rest is real time
        defer { bus.close() }
        let batches = try pacedReplies(on: bus, at: "inproc://rest-in-real-time", pacing: 0.003)
        let client = try peer(.dealer, of: bus, at: "inproc://rest-in-real-time", sending: 1)
        defer { client.close() }
        try bus.turn(waitingAtMost: 1)
        let tookFirst = ContinuousClock.now

        try client.send([Data("1".utf8)])
        while batches().count < 2, ContinuousClock.now - tookFirst < .seconds(20) {
            try bus.turn(waitingAtMost: 30)
        }
        let waited = ContinuousClock.now - tookFirst
        #expect(batches() == [["0"], ["1"]])
        #expect(waited >= .milliseconds(2), "the message waited for the rest")
        #expect(waited < .seconds(10), "the wait ended with the rest, not at the 30 s limit")
    }

    @Test func aStopDuringABatchFinishesTheBatchInHandTakesNoMoreThenRunsTheStopSteps() throws {
        let bus = try Bus(clock: ManualClock())
        defer { bus.close() }
        let stop = StopSignal()
        var answered = 0
        var pulled = 0
        var stopped = 0
        try bus.replies(at: "inproc://stopping", batch: 2) { messages in
            stop.request()
            answered += messages.count
            return messages.map { _ in Data("ok".utf8) }
        }
        try bus.pull(at: "inproc://after-the-stop", batch: 10) { pulled += $0.count }
        bus.onStop { _ in stopped += 1 }
        let client = try peer(.dealer, of: bus, at: "inproc://stopping", sending: 5)
        let pusher = try peer(.push, of: bus, at: "inproc://after-the-stop", sending: 3)
        defer { for socket in [client, pusher] { socket.close() } }

        try bus.run(until: stop)
        #expect(answered == 2 && stopped == 1)
        #expect(try received(by: client) == ["ok", "ok"], "the batch in hand is answered")
        #expect(pulled == 0, "once stopping, a socket of the same turn hands over nothing: it waits for the next start")
    }

    /// A ROUTER with an admission whose handler records the payloads of each batch and answers "re <payload>".
    func admittedReplies(
        on bus: Bus, at endpoint: String, batch: Int, _ admission: RequestAdmission, heldWhile hold: @escaping () -> String? = { nil }
    ) throws -> () -> [[String]] {
        var batches: [[String]] = []
        try bus.replies(at: endpoint, batch: batch, admission: admission, heldWhile: hold) { messages in
            let payloads = messages.map { String(decoding: $0.payload ?? Data(), as: UTF8.self) }
            batches.append(payloads)
            return payloads.map { Data("re \($0)".utf8) }
        }
        return { batches }
    }

    /// A reply as the test reads it: "re <payload>" for an answer, "unavailable" for a refusal.
    func outcomes(_ replies: [String]) -> [String] {
        replies.map { reply in
            guard let envelope = try? WireCodec().decode(Envelope<ErrorBody>.self, from: Data(reply.utf8)) else { return reply }
            return envelope.body.code.rawValue
        }
    }

    @Test func anAdmissionTakesEveryWaitingRequestEachTurnAndRefusesThoseThatWaitedTooLongUnhandled() throws {
        let clock = ManualClock()
        let bus = try Bus(clock: clock)
        defer { bus.close() }
        let batches = try admittedReplies(on: bus, at: "inproc://admitted", batch: 2, RequestAdmission(longestWait: 1))
        let client = try peer(.dealer, of: bus, at: "inproc://admitted", sending: 5)
        defer { client.close() }

        try bus.turn(waitingAtMost: 1)
        #expect(batches() == [["0", "1"]])
        clock.advance(by: 0.6)
        try client.send([Data("5".utf8)])
        try bus.turn(waitingAtMost: 1)
        #expect(batches() == [["0", "1"], ["2", "3"]], "the oldest go first")
        clock.advance(by: 0.6)
        try bus.turn(waitingAtMost: 1)
        #expect(
            batches() == [["0", "1"], ["2", "3"], ["5"]],
            "4 was taken off the socket on the first turn with the others, 1.2 s ago; 5 only 0.6 s ago")
        #expect(outcomes(try received(by: client)) == ["re 0", "re 1", "re 2", "re 3", "unavailable", "re 5"])
    }

    @Test func whileHeldAnAdmissionHandsNothingOverAndRefusesWhatWaitedItsTimeSayingWhy() throws {
        let clock = ManualClock()
        let bus = try Bus(clock: clock)
        defer { bus.close() }
        var hold: String? = "a follower is behind"
        let batches = try admittedReplies(on: bus, at: "inproc://held", batch: 8, RequestAdmission(longestWait: 1), heldWhile: { hold })
        let client = try peer(.dealer, of: bus, at: "inproc://held", sending: 2)
        defer { client.close() }

        try bus.turn(waitingAtMost: 1)
        clock.advance(by: 0.6)
        try client.send([Data("2".utf8)])
        try bus.turn(waitingAtMost: 1)
        #expect(batches().isEmpty, "held: the requests wait in the queue")
        clock.advance(by: 0.4)
        try bus.turn(waitingAtMost: 0)
        let refusals = try received(by: client).compactMap { try? WireCodec().decode(Envelope<ErrorBody>.self, from: Data($0.utf8)).body }
        #expect(refusals.map(\.code) == [.unavailable, .unavailable], "0 and 1 waited their second, with nothing more arriving")
        #expect(refusals.allSatisfy { $0.message.contains("held back: a follower is behind") })

        hold = nil
        try bus.turn(waitingAtMost: 1)
        #expect(batches() == [["2"]], "the hold over, what waits is handed over at once")
        #expect(outcomes(try received(by: client)) == ["re 2"])
    }

    @Test func anAdmissionRefusesWhatWouldGoPastItsBytesAndEverythingAfterItInTheSameTurnButAlwaysTakesOne() throws {
        let bus = try Bus(clock: ManualClock())
        defer { bus.close() }
        // A request of a one-byte payload is 6 bytes (libzmq names a peer with 5): "0" and "2"
        // fit together, "0" and "10" do not.
        let batches = try admittedReplies(
            on: bus, at: "inproc://full", batch: 1, RequestAdmission(longestWait: 60, mostWaitingBytes: 12))
        let client = try peer(.dealer, of: bus, at: "inproc://full", sending: 0)
        defer { client.close() }
        for payload in ["0", "10", "2"] { try client.send([Data(payload.utf8)]) }

        try bus.turn(waitingAtMost: 1)
        #expect(batches() == [["0"]])
        #expect(
            outcomes(try received(by: client)) == ["unavailable", "unavailable", "re 0"],
            "an empty queue takes one request whatever its size; after one refusal the later ones of the turn are refused too, though one of them would fit")
    }

    @Test func aBacklogRefusedInOneTurnReachesAClientThatReadsItLateWhole() throws {
        let clock = ManualClock()
        let bus = try Bus(clock: clock)
        defer { bus.close() }
        let batches = try admittedReplies(on: bus, at: "inproc://backlog", batch: 1, RequestAdmission(longestWait: 1))
        let client = try ZMQSocket(context: bus.context, type: .dealer)
        defer { client.close() }
        try client.setLinger(milliseconds: 0)
        try client.setSendHighWaterMark(0)  // the 3,000 requests queue whole before the bus reads any
        try client.connect("inproc://backlog")
        for index in 0..<3_000 { try client.send([Data("\(index)".utf8)]) }

        try bus.turn(waitingAtMost: 1)
        clock.advance(by: 2)
        try bus.turn(waitingAtMost: 1)
        #expect(batches() == [["0"]])
        let replies = outcomes(try received(by: client))
        #expect(replies.count == 3_000, "libzmq's default high-water mark would drop all but about 2,000 (its own and the client's)")
        #expect(replies.first == "re 0" && replies.dropFirst().allSatisfy { $0 == "unavailable" })
    }

    @Test func requestsWaitingWhenTheBusStopsInItsQueueOrOnTheSocketAreRefusedNotDropped() throws {
        let bus = try Bus(clock: ManualClock())
        defer { bus.close() }
        let batches = try admittedReplies(on: bus, at: "inproc://stopping-admitted", batch: 1, RequestAdmission(longestWait: 60))
        let client = try peer(.dealer, of: bus, at: "inproc://stopping-admitted", sending: 3)
        defer { client.close() }
        try bus.turn(waitingAtMost: 1)
        try client.send([Data("3".utf8)])

        let stop = StopSignal()
        stop.request()
        try bus.run(until: stop)
        #expect(batches() == [["0"]], "once stopping, nothing more is handed over")
        #expect(outcomes(try received(by: client)) == ["re 0", "unavailable", "unavailable", "unavailable"])
    }

    @Test func aClockSteppedBackStartsTheWaitsAgainInsteadOfStoppingThem() throws {
        let clock = ManualClock()
        let bus = try Bus(clock: clock)
        defer { bus.close() }
        let batches = try admittedReplies(on: bus, at: "inproc://stepped", batch: 1, RequestAdmission(longestWait: 1))
        let client = try peer(.dealer, of: bus, at: "inproc://stepped", sending: 3)
        defer { client.close() }
        try bus.turn(waitingAtMost: 1)
        clock.advance(by: -3600)
        try bus.turn(waitingAtMost: 1)
        clock.advance(by: 1.5)
        try bus.turn(waitingAtMost: 1)
        #expect(batches() == [["0"], ["1"]], "2 waited 1.5 s since the step, not an hour less")
        #expect(outcomes(try received(by: client)) == ["re 0", "re 1", "unavailable"])
    }

    @Test func aHandlerThatThrowsEndsTheRunWithItsError() throws {
        let bus = try Bus(clock: ManualClock())
        defer { bus.close() }
        try bus.pull(at: "inproc://poison", batch: 10) { _ in throw Refused() }
        let pusher = try peer(.push, of: bus, at: "inproc://poison", sending: 1)
        defer { pusher.close() }

        #expect(throws: Refused.self) { try bus.run(until: StopSignal()) }
    }

    @Test func aRequestHandlerThatThrowsAnswersInternalErrorAndTheBusGoesOn() throws {
        let bus = try Bus(clock: ManualClock())
        defer { bus.close() }
        try bus.requests(at: "inproc://requests", as: Request.self) { request, _ in
            guard request.type == .ping else { throw Refused() }
            return try bus.codec.reply(to: request.id, user: nil, type: .pong, body: EmptyBody())
        }
        let client = try ZMQSocket(context: bus.context, type: .dealer)
        try client.setLinger(milliseconds: 0)
        try client.connect("inproc://requests")
        defer { client.close() }
        let codec = WireCodec()
        try client.send([try codec.encode(Envelope(id: "q1", type: MessageType.syncStatusRequest.rawValue, body: EmptyBody()))])
        try client.send([try codec.encode(Envelope(id: "q2", type: MessageType.ping.rawValue, body: EmptyBody()))])
        try client.send([Data("not json".utf8)])

        try bus.turn(waitingAtMost: 1)
        let replies = try received(by: client).map { JSONFieldScanner(Data($0.utf8)) }
        let (error, pong) = (MessageType.error.rawValue, MessageType.pong.rawValue)
        #expect(replies.map { $0.string("type") } == [error, pong, error])
        #expect(replies.map { $0.string("inReplyTo") } == ["q1", "q2", nil])
        #expect(replies.map { $0.object("body")?.string("code") } == [ErrorCode.internalError.rawValue, nil, ErrorCode.badJSON.rawValue])
    }

    @Test func aPostFromAnotherThreadWakesAWaitingPollAndIsTakenOnTheBusThread() throws {
        let bus = try Bus(clock: ManualClock())
        defer { bus.close() }
        let mailbox = try BusMailbox<Int>()
        var taken: [Int] = []
        var takenOn: [Thread] = []
        bus.receive(from: mailbox) {
            taken += $0
            takenOn.append(Thread.current)
        }
        // Posted from another thread once this one is (very likely) blocked in the poll below.
        let poster = Thread {
            Thread.sleep(forTimeInterval: 0.05)
            (1...3).forEach { mailbox.post($0) }
        }
        poster.start()
        let before = ContinuousClock.now
        while taken.count < 3, ContinuousClock.now - before < .seconds(20) {
            try bus.turn(waitingAtMost: 30)
        }
        #expect(taken == [1, 2, 3])
        #expect(ContinuousClock.now - before < .seconds(10), "the post ended a 30 s wait")
        #expect(takenOn.allSatisfy { $0 == Thread.current })

        mailbox.post(4)
        let stopped = StopSignal()
        stopped.request()
        try bus.run(until: stopped)
        #expect(taken == [1, 2, 3, 4], "what is posted before the bus stops is taken")
        bus.close()
        #expect(!mailbox.post(5), "a closed bus refuses posts")
    }
}
