import Foundation
import Testing
import ZeroMQ

/// Messages arrive exactly as sent: all frames, in order, whole, byte for byte.
@Suite("Framing")
struct FramingTests {
    @Test(arguments: Transport.allCases)
    func multipartKeepsOrderAndEmptyFrames(transport: Transport) throws {
        let fixture = try Fixture()
        defer { fixture.tearDown() }
        let pull = try fixture.socket(.pull)
        let push = try fixture.socket(.push)
        try fixture.link(pull, push, over: transport)

        let frames = [Data("first"), Data(), Data("third"), Data(), Data("fifth"), Data()]
        try push.send(frames)
        try push.send(Data())  // a message that is a single empty frame
        try push.send("after")
        #expect(try pull.receiveMessage() == frames)
        #expect(try pull.hasMoreFrames == false)
        #expect(try pull.receiveMessage() == [Data()])
        #expect(try pull.receiveMessage() == [Data("after")])
    }

    @Test(arguments: Transport.allCases)
    func tenMegabyteFrameArrivesWhole(transport: Transport) throws {
        let fixture = try Fixture()
        defer { fixture.tearDown() }
        let pull = try fixture.socket(.pull)
        let push = try fixture.socket(.push)
        try fixture.link(pull, push, over: transport)

        let size = 10 * 1024 * 1024
        let big = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 16) })
        try push.send([Data("header"), big])
        let message = try #require(try pull.receiveMessage())
        #expect(message.count == 2)
        #expect(message.last?.count == size)
        #expect(message.last == big)
    }

    @Test(arguments: Transport.allCases)
    func binaryFramesWithNULBytes(transport: Transport) throws {
        let fixture = try Fixture()
        defer { fixture.tearDown() }
        let pull = try fixture.socket(.pull)
        let push = try fixture.socket(.push)
        try fixture.link(pull, push, over: transport)

        let binary = Data([0, 1, 0, 0, 255, 0, 127, 0])
        let allBytes = Data((0...255).map { UInt8($0) })
        try push.send([binary, Data([0]), allBytes])
        #expect(try pull.receiveMessage() == [binary, Data([0]), allBytes])
    }

    @Test func sendingNoFramesIsAnError() throws {
        let fixture = try Fixture()
        defer { fixture.tearDown() }
        let push = try fixture.socket(.push)
        let error = #expect(throws: ZMQError.self) { try push.send([Data]()) }
        #expect(error?.errno == EINVAL)
    }
}
