import Foundation
import Testing
import ZeroMQ

@Suite("Errors")
struct ErrorTests {
    @Test(arguments: ["tcp://", "nonsense://here", "tcp://127.0.0.1:notaport", "inproc://"])
    func invalidEndpointThrows(endpoint: String) throws {
        let fixture = try Fixture()
        defer { fixture.tearDown() }
        let socket = try fixture.socket(.rep)

        let error = #expect(throws: ZMQError.self) { try socket.bind(endpoint) }
        #expect(error?.errno != 0)
        #expect(error?.message.isEmpty == false)
        #expect(error?.operation == "zmq_bind(\(endpoint))")
        #expect(error?.isContextTerminated == false)
        #expect(error?.description.contains(endpoint) == true)
    }

    @Test func addressInUseThrowsEADDRINUSE() throws {
        let fixture = try Fixture()
        defer { fixture.tearDown() }
        let first = try fixture.socket(.rep)
        let endpoint = try fixture.bind(first, over: .tcp)
        let second = try fixture.socket(.rep)

        let error = #expect(throws: ZMQError.self) { try second.bind(endpoint) }
        #expect(error?.errno == EADDRINUSE)
        #expect(error?.operation.hasPrefix("zmq_bind(tcp://127.0.0.1:") == true)
    }

    @Test func inprocNameInUseThrowsEADDRINUSE() throws {
        let fixture = try Fixture()
        defer { fixture.tearDown() }
        let first = try fixture.socket(.pull)
        let endpoint = try fixture.bind(first, over: .inproc)
        let second = try fixture.socket(.pull)
        #expect(throws: ZMQError(errno: EADDRINUSE, operation: "zmq_bind(\(endpoint))")) {
            try second.bind(endpoint)
        }
    }

    @Test func closedSocketThrowsENOTSOCK() throws {
        let fixture = try Fixture()
        defer { fixture.tearDown() }
        let socket = try fixture.socket(.push)
        socket.close()
        socket.close()  // idempotent

        let error = #expect(throws: ZMQError.self) { try socket.send("x") }
        #expect(error?.errno == ENOTSOCK)
        #expect(throws: ZMQError.self) { try socket.bind("inproc://closed") }
        #expect(throws: ZMQError.self) { try socket.receiveMessage(dontWait: true) }
    }

    @Test func invalidOptionValueThrows() throws {
        let fixture = try Fixture()
        defer { fixture.tearDown() }
        let dealer = try fixture.socket(.dealer)
        // Routing ids must be 1...255 bytes.
        let error = #expect(throws: ZMQError.self) { try dealer.setRoutingID(Data()) }
        #expect(error?.errno == EINVAL)
        #expect(error?.operation == "zmq_setsockopt(ZMQ_ROUTING_ID)")
    }

    @Test func invalidContextOptionThrows() {
        #expect(throws: ZMQError.self) { _ = try ZMQContext(ioThreads: -1) }
    }
}
