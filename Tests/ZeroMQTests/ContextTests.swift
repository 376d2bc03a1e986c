import Foundation
import Synchronization
import Testing
import ZeroMQ

@Suite("Context")
struct ContextTests {
    /// The way services stop: a thread owning a socket blocks in receive; another thread
    /// shuts the context down; the blocked call fails with ETERM; the owner closes its
    /// socket and the context terminates.
    @Test func shutdownUnblocksReceiveOnAnotherThread() throws {
        let context = try ZMQContext()
        let outcome = Mutex<Result<[Data]?, ZMQError>?>(nil)
        let blocking = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)

        // A dedicated thread, as in production: the socket is created, used and closed here.
        let thread = Thread {
            defer { finished.signal() }
            do throws(ZMQError) {
                let socket = try ZMQSocket(context: context, type: .pull)
                defer { socket.close() }
                try socket.setLinger(milliseconds: 0)
                try socket.bind("inproc://blocked")
                blocking.signal()
                let message = try socket.receiveMessage()  // no timeout: blocks until shutdown
                outcome.withLock { $0 = .success(message) }
            } catch {
                outcome.withLock { $0 = .failure(error) }
            }
        }
        thread.start()

        #expect(blocking.wait(timeout: .now() + 5) == .success)
        Thread.sleep(forTimeInterval: 0.1)  // let it enter zmq_msg_recv
        let start = ContinuousClock.now
        context.shutdown()
        let unblocked = finished.wait(timeout: .now() + 5) == .success
        #expect(unblocked, "receive was not interrupted by shutdown")
        #expect(milliseconds(since: start) < 2_000)

        let result = outcome.withLock { $0 }
        guard case .failure(let error) = result else {
            Issue.record("expected ETERM, got \(String(describing: result))")
            return
        }
        #expect(error.isContextTerminated)

        if unblocked {
            // The socket is closed, so terminate returns; twice is harmless.
            context.terminate()
            context.terminate()
        }
    }

    @Test func shutdownFailsNewCallsAndSockets() throws {
        let context = try ZMQContext()
        let socket = try ZMQSocket(context: context, type: .pull)
        try socket.setLinger(milliseconds: 0)
        context.shutdown()
        context.shutdown()  // idempotent

        let receiveError = #expect(throws: ZMQError.self) { try socket.receiveMessage() }
        #expect(receiveError?.isContextTerminated == true)
        let pollError = #expect(throws: ZMQError.self) {
            try ZMQPoller.poll([(socket, .readable)], timeoutMilliseconds: -1)
        }
        #expect(pollError?.isContextTerminated == true)
        let socketError = #expect(throws: ZMQError.self) { try ZMQSocket(context: context, type: .push) }
        #expect(socketError?.isContextTerminated == true)

        socket.close()
        context.terminate()
        // After terminate nothing touches the freed context.
        let afterTerminate = #expect(throws: ZMQError.self) { try ZMQSocket(context: context, type: .push) }
        #expect(afterTerminate?.isContextTerminated == true)
        context.shutdown()
    }

    @Test func socketDeinitClosesSoTerminateReturns() throws {
        let context = try ZMQContext()
        do {
            let socket = try ZMQSocket(context: context, type: .dealer)
            try socket.setLinger(milliseconds: 0)
            try socket.connect("tcp://127.0.0.1:1")  // nobody there; pending connect is fine
            try socket.send("queued but never sent")
            #expect(socket.type == .dealer)
        }
        let start = ContinuousClock.now
        context.terminate()  // would hang if the socket were still open
        #expect(milliseconds(since: start) < 2_000)
    }

    @Test func socketOptionsAndIntrospection() throws {
        let fixture = try Fixture()
        defer { fixture.tearDown() }
        let socket = try fixture.socket(.router)
        try socket.setSendHighWaterMark(10)
        try socket.setReceiveHighWaterMark(10)
        try socket.setImmediate(true)
        try socket.setIPv6(true)
        try socket.setRouterMandatory(false)
        try socket.bind("tcp://[::1]:*")
        let endpoint = try socket.lastEndpoint
        #expect(endpoint.hasPrefix("tcp://[::1]:"))
        #expect(try socket.fileDescriptor >= 0)
        #expect(try socket.hasMoreFrames == false)

        let client = try fixture.socket(.dealer)
        try client.setIPv6(true)
        try client.connect(endpoint)
        try client.disconnect(endpoint)
        #expect(throws: ZMQError.self) { try client.disconnect(endpoint) }  // no longer connected
    }

    @Test func libraryVersionIsLoadedLibzmq() {
        let version = ZMQContext.libraryVersion
        #expect(version.major == 4)
        #expect(version.minor >= 3)
    }
}
