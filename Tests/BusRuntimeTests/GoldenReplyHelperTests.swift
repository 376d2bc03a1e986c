import Foundation
import Testing
import WidgetBusProtocol
import WidgetDomain

import BusRuntime

/// The golden replies of WidgetBusProtocolTests (``GoldenWireCase``) are encoded from envelopes
/// built with a fixed id and clock; the services make them with `codec.reply` and
/// `codec.errorReply`, which draw a fresh id (and, for an error, read the clock). This checks
/// that the helpers send exactly the golden bytes but for those.
@Suite("Golden replies as the services' helpers send them")
struct GoldenReplyHelperTests {
    static let replies = GoldenWireCase.all.filter { $0.serviceReply != nil }

    @Test(arguments: replies)
    func helperSendsTheGoldenBytes(_ golden: GoldenWireCase) throws {
        let codec = WireCodec()
        let reply = try #require(golden.serviceReply)
        let sent: Data
        let stampsItsOwnClock: Bool
        switch reply.made {
        case .reply(let type, let body):
            sent = try codec.reply(to: reply.inReplyTo, user: reply.user, type: type, body: try body(), now: GoldenFixtures.now)
            stampsItsOwnClock = false
        case .error(let code, let message, let redirect):
            sent = codec.errorReply(to: reply.inReplyTo, user: reply.user, code: code, message: message, redirect: redirect)
            stampsItsOwnClock = true
        }
        let header = try #require(try JSONSerialization.jsonObject(with: sent) as? [String: Any])
        let id = try #require(header["id"] as? String)
        #expect(id != GoldenFixtures.replyID)
        var text = String(decoding: sent, as: UTF8.self)
            .replacingOccurrences(of: #""id":"\#(id)""#, with: #""id":"\#(GoldenFixtures.replyID)""#)
        if stampsItsOwnClock {
            let sentAt = try #require(header["sentAt"] as? String)
            text = text.replacingOccurrences(
                of: #""sentAt":"\#(sentAt)""#, with: #""sentAt":"\#(WireDate.format(GoldenFixtures.now))""#)
        }
        if let difference = GoldenFiles.difference(expected: try golden.encode(codec), actual: Data(text.utf8)) {
            Issue.record(Comment(rawValue: "\(golden.name): the helper's reply is not the golden. \(difference)"))
        }
    }

    @Test func everyReplyTypeIsCovered() {
        let covered = Set(Self.replies.map(\.type))
        let replyTypes: [MessageType] = [
            .stateReply, .timelineReply, .snapshotReply, .pendingRecordsReply, .profileReply, .acknowledgeReply,
            .pendingUsersReply, .syncReply, .syncStatusReply, .metricsSnapshotReply, .timelineSnapshotReply, .metricsStatusReply, .pong,
            .error,
        ]
        #expect(replyTypes.filter { !covered.contains($0) }.isEmpty)
    }
}
