import ArgumentParser
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

    /// Runs `roundTrip` `requests` times after a warm-up of a tenth of that (at most 1,000,
    /// passed negative indices) and times each call.
    static func measure(
        name: String, requests: Int, payloadBytes: Int, _ roundTrip: (Int) throws -> Void, errors: () -> Int = { 0 }
    ) throws -> Self {
        for index in 0..<min(1_000, requests / 10) { try roundTrip(-1 - index) }
        var histogram = Histogram<UInt64>(highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: .three)
        let clock = ContinuousClock()
        let started = clock.now
        for index in 0..<requests {
            let sent = clock.now
            try roundTrip(index)
            _ = histogram.record((clock.now - sent).asMicroseconds)
        }
        let seconds = (clock.now - started).asSeconds
        return Self(
            name: name, requests: requests, payloadBytes: payloadBytes, seconds: seconds,
            perSecond: Double(requests) / seconds, p50Microseconds: histogram.valueAtPercentile(50),
            p99Microseconds: histogram.valueAtPercentile(99), p999Microseconds: histogram.valueAtPercentile(99.9),
            errors: errors())
    }

    /// Raw libzmq REQ/REP round trips of `payloadBytes`: a REP echo server on its own thread and
    /// context, and a REQ client here — the floor under every request the services answer.
    static func rawRequestReply(requests: Int, payloadBytes: Int) throws -> Self {
        let serverContext = try ZMQContext()
        let bound = Mutex<String?>(nil)
        let ready = DispatchSemaphore(value: 0)
        let server = Thread {
            do {
                let socket = try ZMQSocket(context: serverContext, type: .rep)
                defer { socket.close() }
                try socket.setLinger(milliseconds: 0)
                try socket.bind("tcp://127.0.0.1:*")
                let endpoint = try socket.lastEndpoint
                bound.withLock { $0 = endpoint }
                ready.signal()
                while let frames = try socket.receiveMessage() {
                    try socket.send(frames)
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
        let client = RequestClient(context: try ZMQContextHolder.shared, endpoint: endpoint, timeoutMilliseconds: 5_000, attempts: 1)
        let payload = Data(repeating: 0x61, count: payloadBytes)
        return try measure(name: "raw libzmq REQ/REP", requests: requests, payloadBytes: payloadBytes) { _ in
            _ = try client.request(payload)
        }
    }

    /// The middle one by rate: what a noisy machine's rounds are summarised by.
    static func median(_ measurements: [Self]) -> Self {
        measurements.sorted { $0.perSecond < $1.perSecond }[measurements.count / 2]
    }
}
