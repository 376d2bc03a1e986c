import Foundation
import Logging
import Testing
import WidgetBusTestSupport
import ZeroMQ

@testable import BusRuntime

/// ``ResendingRequester`` on a bus turned by hand, against a ROUTER the test answers itself, on
/// `inproc://`, with a clock set by hand.
@Suite struct ResendingRequesterTests {
    /// The bus, its requester to a ROUTER the test holds, and what the requester answered.
    final class Harness {
        let clock = ManualClock()
        let bus: Bus
        let server: ZMQSocket
        var requester: ResendingRequester!
        var answers: [(id: String, outcome: Result<Data, ResendingRequester.NoReply>)] = []

        init(attempts: Int?) throws {
            bus = try Bus(clock: clock)
            server = try ZMQSocket(context: bus.context, type: .router)
            try server.setLinger(milliseconds: 0)
            try server.bind("inproc://intents")
            requester = try ResendingRequester(
                bus: bus, endpoint: "inproc://intents", resendAfter: 2, attempts: attempts, logger: Logger(label: "test")
            ) { [unowned self] id, outcome in
                answers.append((id, outcome))
            }
        }

        deinit {
            server.close()
            bus.close()
        }

        /// The requests the server has received, waiting up to `milliseconds` for the first: each
        /// its routing frames and payload.
        func received(waitingMilliseconds milliseconds: Int = 1_000) throws -> [(route: [Data], payload: String)] {
            var requests: [(route: [Data], payload: String)] = []
            var wait = milliseconds
            while try ZMQPoller.isReadable(server, waitingMilliseconds: wait), let frames = try server.receiveMessage(dontWait: true) {
                requests.append((Array(frames.dropLast()), String(decoding: frames.last ?? Data(), as: UTF8.self)))
                wait = 0
            }
            return requests
        }

        func answer(_ route: [Data], _ reply: String) throws {
            try server.send(route + [Data(reply.utf8)])
        }

        /// Turns the bus until it has taken a message, at most a second.
        func turnTakingAReply() throws {
            let answered = answers.count
            let deadline = ContinuousClock.now + .seconds(1)
            while answers.count == answered, ContinuousClock.now < deadline { try bus.turn(waitingAtMost: 0.05) }
        }
    }

    static let request = #"{"id":"r1","type":"RemoveWidgetPushToken","user":"ada","body":{"token":"t"}}"#
    static let reply = #"{"id":"a1","inReplyTo":"r1","type":"StateReply","body":{}}"#

    @Test func aRequestUnansweredIsSentAgainWithTheSameBytesAndAnsweredOnce() throws {
        let harness = try Harness(attempts: nil)
        try harness.requester.send(Data(Self.request.utf8), id: "r1", now: harness.clock.now)
        try harness.bus.turn(waitingAtMost: 0)
        let first = try harness.received()
        #expect(first.map(\.payload) == [Self.request])

        harness.clock.advance(by: 1.9)
        try harness.bus.turn(waitingAtMost: 0)
        harness.clock.advance(by: 0.1)
        try harness.bus.turn(waitingAtMost: 0)
        let again = try harness.received()
        #expect(again.map(\.payload) == [Self.request], "sent again once its wait is over, not before")

        for request in first + again { try harness.answer(request.route, Self.reply) }
        try harness.turnTakingAReply()
        try harness.bus.turn(waitingAtMost: 0.05)
        #expect(harness.answers.map(\.id) == ["r1"], "answered once, however many copies were answered")
        #expect(try harness.answers.first?.outcome.get() == Data(Self.reply.utf8))

        harness.clock.advance(by: 10)
        try harness.bus.turn(waitingAtMost: 0)
        #expect(try harness.received(waitingMilliseconds: 100).isEmpty, "an answered request is not sent again")
    }

    @Test func anUnavailableReplyDefersTheResendAndIsTheAnswerWhenTheAttemptsRunOut() throws {
        let harness = try Harness(attempts: 2)
        try harness.requester.send(Data(Self.request.utf8), id: "r1", now: harness.clock.now)
        try harness.bus.turn(waitingAtMost: 0)
        let first = try #require(try harness.received().first)
        harness.clock.advance(by: 1.5)
        let refusal = #"{"id":"e1","inReplyTo":"r1","type":"Error","body":{"code":"unavailable","message":"busy"}}"#
        try harness.answer(first.route, refusal)
        try harness.bus.turn(waitingAtMost: 1)  // until the reply is taken
        #expect(harness.answers.isEmpty, "an unavailable reply is not an answer yet")

        harness.clock.advance(by: 0.5)
        try harness.bus.turn(waitingAtMost: 0)
        #expect(try harness.received(waitingMilliseconds: 100).isEmpty, "the refusal restarted the wait: not sent again at 2 s")
        harness.clock.advance(by: 1.5)
        try harness.bus.turn(waitingAtMost: 0)
        #expect(try harness.received().map(\.payload) == [Self.request], "sent again 2 s after the refusal: the second attempt")
        harness.clock.advance(by: 2)
        try harness.bus.turn(waitingAtMost: 0)
        #expect(try harness.received(waitingMilliseconds: 100).isEmpty, "no third attempt")
        #expect(harness.answers.map(\.id) == ["r1"])
        #expect(try harness.answers.first?.outcome.get() == Data(refusal.utf8), "the last refusal is the answer")
    }

    @Test func aRequestNeverAnsweredFailsWithNoReplyAfterItsAttempts() throws {
        let harness = try Harness(attempts: 2)
        try harness.requester.send(Data(Self.request.utf8), id: "r1", now: harness.clock.now)
        try harness.bus.turn(waitingAtMost: 0)
        harness.clock.advance(by: 2)
        try harness.bus.turn(waitingAtMost: 0)
        #expect(try harness.received().count == 2, "the first attempt and the second")
        harness.clock.advance(by: 2)
        try harness.bus.turn(waitingAtMost: 0)
        #expect(harness.answers.map(\.id) == ["r1"])
        #expect(throws: ResendingRequester.NoReply.self) { try harness.answers.first?.outcome.get() }
    }

    @Test func anAbandonedRequestIsNeitherSentAgainNorAnswered() throws {
        let harness = try Harness(attempts: nil)
        try harness.requester.send(Data(Self.request.utf8), id: "r1", now: harness.clock.now)
        try harness.bus.turn(waitingAtMost: 0)
        let first = try harness.received()
        harness.requester.abandonAll()
        for request in first { try harness.answer(request.route, Self.reply) }
        harness.clock.advance(by: 10)
        for _ in 0..<3 { try harness.bus.turn(waitingAtMost: 0.05) }
        #expect(try harness.received(waitingMilliseconds: 100).isEmpty)
        #expect(harness.answers.isEmpty)
    }
}
