import Foundation
import Testing
import W3CTraceContext
import WidgetBusProtocol

@Suite("Trace context in the envelope")
struct TraceContextTests {
    static let traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
    let codec = WireCodec()

    @Test("an envelope carries traceparent and tracestate only when it has a trace")
    func onlyWhenTraced() throws {
        var envelope = Envelope(id: "e1", type: "Ping", sentAt: Date(timeIntervalSince1970: 0), body: EmptyBody())
        let plain = String(decoding: try codec.encode(envelope), as: UTF8.self)
        #expect(!plain.contains("trace"))
        envelope.trace = try TraceContext(traceParentHeaderValue: Self.traceparent, traceStateHeaderValue: "vendor=opaque")
        let traced = try codec.decode(Envelope<EmptyBody>.self, from: try codec.encode(envelope))
        #expect(traced.traceparent == Self.traceparent && traced.tracestate == "vendor=opaque")
        #expect(traced.trace?.traceID.description == "4bf92f3577b34da6a3ce929d0e0e4736")
    }

    @Test(
        "a traceparent that does not parse is no trace",
        arguments: ["", "00-nonsense", "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01", "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "00-4BF92F3577B34DA6A3CE929D0E0E473G-00f067aa0ba902b7-01"])
    func malformedIsNoTrace(traceparent: String) {
        #expect(TraceContext(traceparent: traceparent, tracestate: nil) == nil)
    }

    @Test("a tracestate that does not parse is dropped; its traceparent is kept")
    func malformedStateIsDropped() throws {
        let context = try #require(TraceContext(traceparent: Self.traceparent, tracestate: "=,,not a list"))
        #expect(context.traceParentHeaderValue == Self.traceparent && context.state.isEmpty)
    }

    @Test("continuing a trace keeps its id, flags and state, with a span id of its own")
    func continuing() throws {
        let context = try TraceContext(traceParentHeaderValue: Self.traceparent, traceStateHeaderValue: "vendor=opaque")
        let next = context.continued()
        #expect(next.traceID == context.traceID && next.flags == context.flags)
        #expect(next.traceStateHeaderValue == "vendor=opaque")
        #expect(next.spanID != context.spanID && next.spanID != .null)
        #expect(TraceContext.start().traceID != TraceContext.start().traceID)
        #expect(TraceContext.start().flags.contains(.sampled))
    }

    @Test("a request reads its trace, and one that does not read changes nothing else of it")
    func requestsReadTheirTrace() throws {
        func request(_ traceField: String) throws -> Request {
            let payload = #"{"version":1,"id":"r1","type":"RecordTensionIntent","user":"alice","sentAt":"2026-11-22T10:00:00.000Z",\#(traceField)"body":{"level":7}}"#
            return try Request.decode(Data(payload.utf8), codec: codec)
        }
        let traced = try request(#""traceparent":"\#(Self.traceparent)","tracestate":"vendor=opaque","#)
        #expect(traced.trace?.traceParentHeaderValue == Self.traceparent && traced.trace?.traceStateHeaderValue == "vendor=opaque")
        let untraced = try request("")
        #expect(untraced.trace == nil)
        for odd in [#""traceparent":"garbage","#, #""traceparent":42,"#, #""traceparent":null,"#, #""tracestate":"vendor=x","#] {
            let read = try request(odd)
            #expect(read.trace == nil && read.body == untraced.body && read.id == "r1", "\(odd)")
        }
    }
}
