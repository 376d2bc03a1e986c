import Foundation
import Testing
import ZeroMQ

@Suite("Poller")
struct PollerTests {
    @Test(arguments: Transport.allCases)
    func reportsOnlyTheSocketWithData(transport: Transport) throws {
        let fixture = try Fixture()
        defer { fixture.tearDown() }
        let busy = try fixture.socket(.pull)
        let idle = try fixture.socket(.pull)
        let push = try fixture.socket(.push)
        try fixture.link(busy, push, over: transport)
        _ = try fixture.bind(idle, over: transport)

        try push.send("wake up")
        let ready = try ZMQPoller.poll([(busy, .readable), (idle, .readable)], timeoutMilliseconds: 5_000)
        #expect(ready == [.readable, []])
        // poll returns as soon as any socket is ready; the connected PUSH is writable now.
        let writable = try ZMQPoller.poll(
            [(idle, .readable), (push, .writable)],
            timeoutMilliseconds: 5_000
        )
        #expect(writable == [[], .writable])
        // Readable means a whole message is there: a non-blocking receive gets it.
        #expect(try busy.receiveMessage(dontWait: true) == [Data("wake up")])
        #expect(try ZMQPoller.poll([(busy, .readable)], timeoutMilliseconds: 0) == [[]])
    }

    @Test func aFileDescriptorIsPolledBesideSockets() throws {
        let fixture = try Fixture()
        defer { fixture.tearDown() }
        let idle = try fixture.socket(.pull)
        _ = try fixture.bind(idle, over: .inproc)
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer { for end in ends { close(end) } }
        let targets: [(target: ZMQPollTarget, events: ZMQPollEvents)] = [(.socket(idle), .readable), (.fileDescriptor(ends[0]), .readable)]

        #expect(try ZMQPoller.poll(targets: targets, timeoutMilliseconds: 0) == [[], []])
        var byte: UInt8 = 1
        #expect(write(ends[1], &byte, 1) == 1)
        #expect(try ZMQPoller.poll(targets: targets, timeoutMilliseconds: 5_000) == [[], .readable])
        #expect(try !ZMQPoller.isReadable(idle, waitingMilliseconds: 0))
    }

    @Test func timeoutIsRespected() throws {
        let fixture = try Fixture()
        defer { fixture.tearDown() }
        let idle = try fixture.socket(.pull)
        _ = try fixture.bind(idle, over: .inproc)

        let start = ContinuousClock.now
        let ready = try ZMQPoller.poll([(idle, .readable)], timeoutMilliseconds: 150)
        let elapsed = milliseconds(since: start)
        #expect(ready == [[]])
        #expect(elapsed >= 120, "returned after \(elapsed) ms, before the timeout")
        #expect(elapsed < 2_000, "returned after \(elapsed) ms")
    }

    @Test func closedSocketThrows() throws {
        let fixture = try Fixture()
        defer { fixture.tearDown() }
        let socket = try fixture.socket(.pull)
        socket.close()
        let error = #expect(throws: ZMQError.self) {
            try ZMQPoller.poll([(socket, .readable)], timeoutMilliseconds: 0)
        }
        #expect(error?.errno == ENOTSOCK)
    }
}
