import Foundation
import Testing
import WidgetBusProtocol
@testable import BusRuntime

@Suite("Routed messages")
struct RoutedMessageTests {
    let codec = WireCodec()
    let identity = Data([0, 1, 2, 3])
    let ping = Data(#"{"version":1,"id":"p-1","type":"Ping","sentAt":"2026-11-22T10:00:00.000Z","body":{}}"#.utf8)

    @Test func theRouteOfAREQPeerKeepsItsDelimiterAndADEALERPeerItsIdentityAlone() {
        let fromREQ = RoutedMessage(frames: [identity, Data(), ping])
        #expect(fromREQ.route == [identity, Data()] && fromREQ.payload == ping)
        #expect(fromREQ.reply(Data("r".utf8)) == [identity, Data(), Data("r".utf8)])
        let fromDEALER = RoutedMessage(frames: [identity, ping])
        #expect(fromDEALER.route == [identity] && fromDEALER.payload == ping)
    }

    @Test func aSinglePayloadFrameIsDecoded() throws {
        let request = try RoutedMessage(frames: [identity, ping]).request(codec: codec, Request.decode).get()
        #expect(request.id == "p-1" && request.body == .ping)
    }

    @Test func anythingButOnePayloadFrameIsAnsweredWithBadFrames() throws {
        for frames in [[identity], [identity, ping, ping]] {
            guard case .failure(let refused) = RoutedMessage(frames: frames).request(codec: codec, Request.decode) else {
                Issue.record("\(frames.count) frames were accepted")
                continue
            }
            let reply = try codec.decode(Envelope<ErrorBody>.self, from: refused.reply)
            #expect(reply.body.code == .badFrames && reply.inReplyTo == nil)
        }
    }

    @Test func anUndecodablePayloadIsAnsweredWithItsCodeNamingTheRequestWhenItCan() throws {
        let unknown = Data(#"{"version":1,"id":"u-1","type":"Nope","sentAt":"2026-11-22T10:00:00.000Z","body":{}}"#.utf8)
        for (payload, code, id) in [(Data("{".utf8), ErrorCode.badJSON, nil), (unknown, .unknownType, "u-1")] {
            guard case .failure(let refused) = RoutedMessage(frames: [identity, payload]).request(codec: codec, Request.decode) else {
                Issue.record("\(String(decoding: payload, as: UTF8.self)) was accepted")
                continue
            }
            let reply = try codec.decode(Envelope<ErrorBody>.self, from: refused.reply)
            #expect(reply.body.code == code && reply.inReplyTo == id)
        }
    }
}
