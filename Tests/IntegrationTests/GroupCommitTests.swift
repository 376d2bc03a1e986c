import BusRuntime
import Foundation
import Testing
import WidgetBusProtocol
import WidgetDomain
import ZeroMQ

/// intent-handler commits the requests queued at one moment together (group commit), yet each
/// request stands alone: a retry inside the burst gets the first reply, a refused request
/// changes nothing, events stay gap-free and in reply order.
@Suite(.serialized, .blockingThreads)
struct GroupCommitTests {
    @Test func aPipelinedBurstIsCommittedTogetherYetEachRequestStandsAlone() throws {
        let bus = try BusFixture()
        try bus.start(.intentHandler)
        let events = try EventSubscriber(endpoint: bus.endpoint(.stateEvents), topics: ["state.", Topic.heartbeat])
        try events.waitForHeartbeat()

        let codec = bus.codec
        func intent(_ id: String, user: String, level: Int) throws -> (id: String, payload: Data) {
            (id, try codec.encode(Envelope(id: id, type: MessageType.recordTension.rawValue, user: user, body: RecordTensionBody(level: level))))
        }
        var requests = try (0..<60).map { try intent("gc-\($0)", user: "gc-user-\($0 % 6)", level: [0, 3, 5, 7, 10][$0 % 5]) }
        requests.insert(requests[3], at: 10)  // a retry of gc-3 inside the same burst
        requests.insert(try intent("gc-refused", user: "gc-user-0", level: 4), at: 20)
        requests.insert(try intent("gc-7", user: "gc-intruder", level: 3), at: 30)  // gc-7's id, another user

        // Everything is sent before any reply is read, so the requests queue up together.
        var replies: [(inReplyTo: String, payload: Data)] = []
        let client = try PipelinedClient(context: try ZMQContext(), endpoint: bus.endpoint(.intents), security: nil)
        try client.exchange(count: requests.count, window: requests.count) { requests[$0].payload } reply: { payload in
            replies.append((try #require(try codec.decode(EnvelopeHeader.self, from: payload).inReplyTo), payload))
        }
        #expect(replies.count == requests.count)

        let retried = replies.filter { $0.inReplyTo == "gc-3" }.map(\.payload)
        #expect(retried.count == 2 && retried[0] == retried[1], "a retry in the same burst gets the byte-identical reply")
        #expect(try error(in: replies, for: "gc-refused", codec: codec) == .invalidLevel)
        let intruder = replies.filter { $0.inReplyTo == "gc-7" }.compactMap { try? errorCode($0.payload, codec: codec) }
        #expect(intruder == [.idReused], "the id of gc-7 reused by another user is refused")

        var committed: [UInt64: StateRecord] = [:]
        for reply in replies where reply.inReplyTo.hasPrefix("gc-") {
            if case .success(let envelope) = try ReplyDecoding.decode(reply.payload, as: StateRecord.self, codec: codec) {
                committed[envelope.body.version] = envelope.body
            }
        }
        #expect(committed.count == 60, "every original intent committed one state version")
        let published = try events.receive(StateChangedBody.self, type: .stateChanged, count: committed.count)
        let sequences = published.map(\.body.sequence)
        #expect(sequences == Array(sequences[0]..<(sequences[0] + UInt64(sequences.count))), "gap-free, in commit order")
        #expect(Set(sequences) == Set(committed.keys))
        for event in published {
            #expect(event.body.record == committed[event.body.sequence], "event \(event.body.sequence) carries the replied state")
        }
        for user in 0..<6 {
            let latest = committed.values.filter { $0.user == "gc-user-\(user)" }.max { $0.version < $1.version }
            #expect(try bus.storedState(.tensionCheck, user: "gc-user-\(user)") == latest)
        }
        #expect(try bus.storedState(.tensionCheck, user: "gc-intruder") == nil, "a refused request stores nothing")
    }

    private func errorCode(_ payload: Data, codec: WireCodec) throws -> ErrorCode? {
        if case .failure(let error) = try ReplyDecoding.decode(payload, as: StateRecord.self, codec: codec) { return error.code }
        return nil
    }

    private func error(in replies: [(inReplyTo: String, payload: Data)], for id: String, codec: WireCodec) throws -> ErrorCode? {
        try replies.first { $0.inReplyTo == id }.flatMap { try errorCode($0.payload, codec: codec) }
    }
}
