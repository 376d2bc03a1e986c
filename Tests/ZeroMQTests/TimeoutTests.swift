import Foundation
import Testing
import ZeroMQ

/// "Nothing now" is a value (nil / false), returned within the configured bound.
@Suite("Timeouts and would-block")
struct TimeoutTests {
    @Test func receiveTimeoutReturnsNil() throws {
        let fixture = try Fixture()
        defer { fixture.tearDown() }
        let pull = try fixture.socket(.pull)
        _ = try fixture.bind(pull, over: .tcp)
        try pull.setReceiveTimeout(milliseconds: 100)

        let start = ContinuousClock.now
        #expect(try pull.receiveMessage() == nil)
        let elapsed = milliseconds(since: start)
        #expect(elapsed >= 80, "returned after \(elapsed) ms, before the timeout")
        #expect(elapsed < 2_000, "returned after \(elapsed) ms")
    }

    @Test func dontWaitReceiveOnEmptySocketReturnsNil() throws {
        let fixture = try Fixture()
        defer { fixture.tearDown() }
        let pull = try fixture.socket(.pull)
        try pull.setReceiveTimeout(milliseconds: -1)  // would block forever without dontWait
        _ = try fixture.bind(pull, over: .inproc)

        let start = ContinuousClock.now
        #expect(try pull.receiveMessage(dontWait: true) == nil)
        #expect(milliseconds(since: start) < 1_000)
    }

    @Test func dontWaitSendWithoutPeerReturnsFalse() throws {
        let fixture = try Fixture()
        defer { fixture.tearDown() }
        let push = try fixture.socket(.push)
        try push.setSendTimeout(milliseconds: -1)
        _ = try fixture.bind(push, over: .tcp)  // bound, nobody connected: no queue to use

        #expect(try push.send("nobody listens", dontWait: true) == false)
        #expect(try push.send([Data("a"), Data("b")], dontWait: true) == false)
    }

    @Test func sendTimeoutReturnsFalse() throws {
        let fixture = try Fixture()
        defer { fixture.tearDown() }
        let push = try fixture.socket(.push)
        try push.setSendTimeout(milliseconds: 100)
        _ = try fixture.bind(push, over: .inproc)

        let start = ContinuousClock.now
        #expect(try push.send("nobody listens") == false)
        let elapsed = milliseconds(since: start)
        #expect(elapsed >= 80 && elapsed < 2_000, "returned after \(elapsed) ms")
    }

    /// ZMQ_MAXMSGSIZE is enforced by the TCP wire decoder (inproc:// passes messages
    /// through without decoding), so this runs over TCP only.
    @Test func frameAboveMaxMessageSizeIsNotDelivered() throws {
        let fixture = try Fixture()
        defer { fixture.tearDown() }
        let pull = try fixture.socket(.pull)
        try pull.setMaxMessageSize(bytes: 1_024)
        let push = try fixture.socket(.push)
        try fixture.link(pull, push, over: .tcp)

        // Within the limit: delivered, which proves the connection works.
        try push.send(Data(count: 1_024))
        #expect(try pull.receiveMessage()?.first?.count == 1_024)

        try push.send(Data(count: 1_025))
        try pull.setReceiveTimeout(milliseconds: 300)
        #expect(try pull.receiveMessage() == nil)
    }
}
