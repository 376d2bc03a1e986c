import ArgumentParser
import BusRuntime
import Foundation
import Histogram
import ServiceSupport
import Synchronization
import ZeroMQ

/// Operations timed one after the other into an HdrHistogram: how the benchmarks measure the
/// raw libzmq REQ/REP baseline and whatever they compare with it, the same way in the same run.
struct RoundTripMeasurement: Codable {
    var name: String
    var requests: Int
    var payloadBytes: Int
    var seconds: Double
    var perSecond: Double
    var p50Microseconds: UInt64
    var p99Microseconds: UInt64
    var p999Microseconds: UInt64
    var errors: Int

    private init(
        name: String, requests: Int, payloadBytes: Int, elapsed: Duration, histogram: Histogram<UInt64>, errors: Int
    ) {
        self.name = name
        self.requests = requests
        self.payloadBytes = payloadBytes
        seconds = elapsed.asSeconds
        perSecond = Double(requests) / seconds
        p50Microseconds = histogram.valueAtPercentile(50)
        p99Microseconds = histogram.valueAtPercentile(99)
        p999Microseconds = histogram.valueAtPercentile(99.9)
        self.errors = errors
    }

    /// Microseconds up to a minute, to three significant digits.
    /// Runs `roundTrip` `requests` times after a warm-up of a tenth of that (at most 1,000,
    /// passed negative indices) and times each call.
    static func measure(
        name: String, requests: Int, payloadBytes: Int, _ roundTrip: (Int) throws -> Void, errors: () -> Int = { 0 }
    ) throws -> Self {
        for index in 0..<min(1_000, requests / 10) { try roundTrip(-1 - index) }
        var histogram = Histogram<UInt64>.latencyMicroseconds()
        let clock = ContinuousClock()
        let started = clock.now
        for index in 0..<requests {
            let sent = clock.now
            try roundTrip(index)
            _ = histogram.record((clock.now - sent).asMicroseconds)
        }
        return Self(
            name: name, requests: requests, payloadBytes: payloadBytes, elapsed: clock.now - started, histogram: histogram,
            errors: errors())
    }

    /// Sends `requests` payloads on `client` with `window` in flight (after a warm-up of a tenth,
    /// at most 1,000, passed negative indices) and times each from its send to its reply; the
    /// server answers one connection in order, so the n-th reply answers the n-th request.
    static func pipelined(
        name: String, requests: Int, window: Int, payloadBytes: Int, client: PipelinedClient,
        _ payload: (Int) throws -> Data, reply: (Data) throws -> Void = { _ in }, errors: () -> Int = { 0 }
    ) throws -> Self {
        let warmUp = min(1_000, requests / 10)
        try client.exchange(count: warmUp, window: window) { try payload(-1 - $0) } reply: { _ in }
        var histogram = Histogram<UInt64>.latencyMicroseconds()
        var sentAt: [ContinuousClock.Instant] = []
        sentAt.reserveCapacity(requests)
        let clock = ContinuousClock()
        let started = clock.now
        try client.exchange(count: requests, window: window) { index in
            sentAt.append(clock.now)
            return try payload(index)
        } reply: { answer in
            _ = histogram.record((clock.now - sentAt[Int(histogram.totalCount)]).asMicroseconds)
            try reply(answer)
        }
        return Self(
            name: name, requests: requests, payloadBytes: payloadBytes, elapsed: clock.now - started, histogram: histogram,
            errors: errors())
    }

    /// Raw libzmq round trips of `payloadBytes` — the floor under every request the services
    /// answer: an echo server on its own thread and context, and a client here; one at a time
    /// over REQ/REP, or `inFlight` at a time from a DEALER to a ROUTER.
    static func rawRequestReply(requests: Int, payloadBytes: Int, inFlight: Int = 1) throws -> Self {
        let serverContext = try ZMQContext()
        let bound = Mutex<String?>(nil)
        let ready = DispatchSemaphore(value: 0)
        let server = Thread {
            do {
                let socket = try ZMQSocket(context: serverContext, type: inFlight > 1 ? .router : .rep)
                defer { socket.close() }
                try socket.setLinger(milliseconds: 0)
                try socket.bind("tcp://127.0.0.1:*")
                let endpoint = try socket.lastEndpoint
                bound.withLock { $0 = endpoint }
                ready.signal()
                while let frames = try socket.receiveMessage() {
                    try socket.send(frames)  // a ROUTER's frames start with the peer's identity: back to it
                }
            } catch {
                ready.signal()
            }
        }
        server.start()
        ready.wait()
        defer {
            serverContext.shutdown()
            serverContext.terminate()
        }
        guard let endpoint = bound.withLock({ $0 }) else { throw ValidationError("raw baseline server failed to bind") }
        let payload = Data(repeating: 0x61, count: payloadBytes)
        guard inFlight > 1 else {
            let client = RequestClient(
                context: try ZMQContextHolder.shared, endpoint: endpoint, timeoutMilliseconds: 5_000, attempts: 1, security: nil)
            return try measure(name: "raw libzmq REQ/REP", requests: requests, payloadBytes: payloadBytes) { _ in
                _ = try client.request(payload)
            }
        }
        return try pipelined(
            name: "raw libzmq DEALER/ROUTER", requests: requests, window: inFlight, payloadBytes: payloadBytes,
            client: try PipelinedClient(context: try ZMQContextHolder.shared, endpoint: endpoint, security: nil)
        ) { _ in payload }
    }

    /// The middle one by rate: what a noisy machine's rounds are summarised by.
    static func median(_ measurements: [Self]) -> Self {
        measurements.sorted { $0.perSecond < $1.perSecond }[measurements.count / 2]
    }
}
