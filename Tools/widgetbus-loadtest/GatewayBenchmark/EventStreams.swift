import AsyncHTTPClient
import BusRuntime
import CommandLineText
import FakeAPNs
import Foundation
import Histogram
import NIOCore
import NIOHTTP1
import ServiceSupport
import WidgetBusProtocol
import ZeroMQ

#if canImport(Glibc)
import Glibc
#endif

/// Many open event streams on one gateway: its memory once they are all open, and how soon a
/// change reaches its stream.
struct EventStreamRun: Codable, Sendable {
    /// `tls-h1` (HTTPS, HTTP/1.1, one connection per stream: a phone each), `tls-h2` (HTTPS,
    /// HTTP/2, many streams per connection) or `plain-h1` (plain HTTP/1.1 on loopback, behind a
    /// TLS-terminating proxy).
    var configuration: String
    var description: String
    var streams: Int
    var opened: Int
    var failed: Int
    var firstFailure: String?
    var connections: Int
    var openingSeconds: Double
    /// The gateway's CPU for opening them all: handshakes, one token verification each.
    var gatewayCPUSecondsOpening: Double
    var gatewayRSSBeforeMegabytes: Double
    var gatewayRSSOpenMegabytes: Double
    /// The part of ``gatewayRSSOpenMegabytes`` mapped from files (`RssFile`): code, not streams.
    var gatewayRSSFileOpenMegabytes: Double
    var gatewayRSSAfterChangesMegabytes: Double
    var kilobytesPerStream: Double
    var clientRSSOpenMegabytes: Double
    var changes: Int
    var delivered: Int
    /// From the tap sent to intent-handler to the timeline event on the user's stream.
    var tapToStreamP50Milliseconds: Double
    var tapToStreamP99Milliseconds: Double
    var tapToStreamMaxMilliseconds: Double
    /// From timeline-service's event reaching a subscriber of its publisher (this process) to the
    /// same change on the user's stream: the gateway's own part.
    var eventToStreamP50Milliseconds: Double
    var eventToStreamP99Milliseconds: Double
    var eventToStreamMaxMilliseconds: Double
}

/// When each timeline event arrived on a stream, by user.
final class StreamArrivals: Sendable {
    private let arrivals = Locked([String: [(version: UInt64, at: ContinuousClock.Instant)]]())

    func record(user: String, version: UInt64, at instant: ContinuousClock.Instant) {
        arrivals.withLock { $0[user, default: []].append((version, instant)) }
    }

    /// The first arrival for `user` of a timeline at `version` or later.
    func first(user: String, atLeast version: UInt64) -> ContinuousClock.Instant? {
        arrivals.withLock { $0[user]?.first { $0.version >= version }?.at }
    }
}

/// When each `TimelineChanged` reached a subscriber of timeline-service's publisher: a thread of
/// its own stamps each as it comes.
final class TimelineEventClock: Sendable {
    private let seen = Locked([String: ContinuousClock.Instant]())
    private let stop = StopSignal()
    private let thread = Locked<Thread?>(nil)

    init(endpoint: String) throws {
        let ready = DispatchSemaphore(value: 0)
        let failure = Locked<String?>(nil)
        let (seen, stop) = (seen, stop)
        let thread = Thread {
            do {
                let context = try ZMQContext()
                let socket = try ZMQSocket(context: context, type: .sub)
                defer {
                    socket.close()
                    context.terminate()
                }
                try socket.setLinger(milliseconds: 0)
                try socket.setReceiveHighWaterMark(0)
                try socket.subscribe(Topic.timelinePrefix)
                try socket.connect(endpoint, security: nil)
                ready.signal()
                while !stop.isRequested {
                    guard try ZMQPoller.isReadable(socket, waitingMilliseconds: 50) else { continue }
                    let now = ContinuousClock.now
                    while let frames = try socket.receiveMessage(dontWait: true), let payload = frames.last {
                        let envelope = JSONFieldScanner(payload)
                        guard let user = envelope.string("user"),
                            let version = envelope.object("body")?.object("timeline")?.unsignedInteger("stateVersion")
                        else { continue }
                        seen.withLock { if $0["\(user)|\(version)"] == nil { $0["\(user)|\(version)"] = now } }
                    }
                }
            } catch {
                failure.withLock { $0 = "\(error)" }
                ready.signal()
            }
        }
        thread.name = "timeline-event-clock"
        thread.start()
        ready.wait()
        if let failure = failure.withLock({ $0 }) { throw ValidationFailure("subscribing to \(endpoint): \(failure)") }
        self.thread.withLock { $0 = thread }
        usleep(300_000)  // the subscription reaches the publisher
    }

    func arrival(user: String, version: UInt64) -> ContinuousClock.Instant? {
        seen.withLock { $0["\(user)|\(version)"] }
    }

    func close() { stop.request() }
}

enum EventStreams {
    struct Configuration: Sendable {
        var name: String
        var description: String
        var transport: GatewayUnderTest.Transport
        /// Streams per HTTP/2 connection; nil for HTTP/1.1 (a connection per stream).
        var streamsPerConnection: Int?
    }

    static func configuration(named name: String, streamsPerConnection: Int) throws -> Configuration {
        switch name {
        case "tls-h1": Configuration(name: name, description: "HTTPS, HTTP/1.1, one TLS connection per stream", transport: .tls, streamsPerConnection: nil)
        case "tls-h2":
            Configuration(
                name: name, description: "HTTPS, HTTP/2, \(streamsPerConnection) streams per TLS connection", transport: .tls,
                streamsPerConnection: streamsPerConnection)
        case "plain-h1":
            Configuration(
                name: name, description: "plain HTTP/1.1 on loopback (behind a TLS proxy), one connection per stream", transport: .plain,
                streamsPerConnection: nil)
        default: throw ValidationFailure("no stream configuration \(name): tls-h1, tls-h2, plain-h1")
        }
    }

    /// Starts a gateway of `configuration`, opens a stream for each user, reads its memory, then
    /// taps `samples` of those users on the bus (one every `sampleInterval`) and times each change
    /// to its stream.
    static func measure(
        _ configuration: Configuration, files: GatewayFiles, environment: [String: String], subjects: [String], authorizations: [String],
        samples: Int, sampleInterval: Duration, openConcurrency: Int
    ) throws -> EventStreamRun {
        let gateway = try GatewayUnderTest(transport: configuration.transport, files: files, environment: environment, name: "gateway-sse-\(configuration.name)")
        defer { gateway.stop() }
        Console.line("  \(configuration.name): app-gateway pid \(gateway.pid) on \(gateway.baseURL)")
        usleep(1_000_000)
        let rssBefore = gateway.residentKilobytes
        let caPEM = files.certificates.caPEM
        let clients: [HTTPClient]
        if let perConnection = configuration.streamsPerConnection {
            clients = try (0..<((subjects.count + perConnection - 1) / perConnection)).map { _ in
                try BenchHTTPClients.make(caPEM: caPEM, version: .automatic, readTimeout: nil)
            }
        } else {
            clients = [try BenchHTTPClients.make(caPEM: caPEM, version: .http1Only, http1Connections: subjects.count + 100, readTimeout: nil)]
        }
        let arrivals = StreamArrivals()
        let users = subjects.map(BenchIssuer.user)
        let cpuBefore = gateway.cpuSeconds
        let openingStart = ContinuousClock.now
        let baseURL = gateway.baseURL
        let perConnection = configuration.streamsPerConnection
        let opening = try waitFor {
            await open(
                clients: clients, streamsPerClient: perConnection, baseURL: baseURL, authorizations: authorizations, users: users,
                concurrency: openConcurrency, arrivals: arrivals)
        }
        let openingSeconds = (ContinuousClock.now - openingStart).asSeconds
        let cpuOpening = gateway.cpuSeconds - cpuBefore
        Console.line(
            "  \(configuration.name): \(opening.readers.count) of \(subjects.count) streams open in \(openingSeconds.text(1)) s"
                + (opening.failures.isEmpty ? "" : ", \(opening.failures.count) failed (first: \(opening.failures[0]))"))
        usleep(2_000_000)
        let rssOpen = gateway.residentKilobytes
        let rssFileOpen = gateway.residentFileKilobytes
        let clientRSS = ProcessFigures.residentKilobytes(of: getpid()) ?? 0

        // The changes: taps of a sample of the users, straight to intent-handler.
        let clock = try TimelineEventClock(endpoint: BusEndpoint.timelineEvents.resolve(in: environment))
        defer { clock.close() }
        let step = max(1, subjects.count / max(1, samples))
        let sample = (0..<min(samples, subjects.count)).map { users[($0 * step) % users.count] }
        let taps = try tap(users: sample, interval: sampleInterval, endpoint: BusEndpoint.intents.resolve(in: environment))
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline, !taps.allSatisfy({ arrivals.first(user: $0.user, atLeast: $0.version) != nil }) {
            usleep(20_000)
        }
        var tapToStream = Histogram<UInt64>.latencyMicroseconds()
        var eventToStream = Histogram<UInt64>.latencyMicroseconds()
        var delivered = 0
        for tap in taps {
            guard let arrived = arrivals.first(user: tap.user, atLeast: tap.version) else { continue }
            delivered += 1
            _ = tapToStream.record((arrived - tap.sentAt).asMicroseconds)
            if let published = clock.arrival(user: tap.user, version: tap.version) {
                _ = eventToStream.record(arrived > published ? (arrived - published).asMicroseconds : 0)
            }
        }
        let rssAfter = gateway.residentKilobytes
        // Ending the gateway ends every stream; then the readers and clients go.
        gateway.stop()
        for reader in opening.readers { reader.cancel() }
        try waitFor { await BenchHTTPClients.shutdown(clients) }
        func ms(_ value: UInt64) -> Double { Double(value) / 1_000 }
        return EventStreamRun(
            configuration: configuration.name, description: configuration.description, streams: subjects.count, opened: opening.readers.count,
            failed: opening.failures.count, firstFailure: opening.failures.first, connections: perConnection == nil ? opening.readers.count : clients.count,
            openingSeconds: openingSeconds, gatewayCPUSecondsOpening: cpuOpening, gatewayRSSBeforeMegabytes: Double(rssBefore) / 1_024,
            gatewayRSSOpenMegabytes: Double(rssOpen) / 1_024, gatewayRSSFileOpenMegabytes: Double(rssFileOpen) / 1_024,
            gatewayRSSAfterChangesMegabytes: Double(rssAfter) / 1_024,
            kilobytesPerStream: Double(rssOpen - rssBefore) / Double(max(1, opening.readers.count)), clientRSSOpenMegabytes: Double(clientRSS) / 1_024,
            changes: taps.count, delivered: delivered, tapToStreamP50Milliseconds: ms(tapToStream.valueAtPercentile(50)),
            tapToStreamP99Milliseconds: ms(tapToStream.valueAtPercentile(99)), tapToStreamMaxMilliseconds: ms(tapToStream.max),
            eventToStreamP50Milliseconds: ms(eventToStream.valueAtPercentile(50)), eventToStreamP99Milliseconds: ms(eventToStream.valueAtPercentile(99)),
            eventToStreamMaxMilliseconds: ms(eventToStream.max))
    }

    struct Opening: Sendable {
        var readers: [Task<Void, Never>]
        var failures: [String]
    }

    /// Opens `GET /v1/events` for every user, `concurrency` at a time; stream `i` goes on
    /// `clients[i / streamsPerClient]` (HTTP/2: that many streams on each client's one
    /// connection), or all on `clients[0]` (HTTP/1.1: a connection each). Each stream is read by a
    /// task of its own from when its head arrives.
    static func open(
        clients: [HTTPClient], streamsPerClient: Int?, baseURL: String, authorizations: [String], users: [String], concurrency: Int,
        arrivals: StreamArrivals
    ) async -> Opening {
        var opening = Opening(readers: [], failures: [])
        opening.readers.reserveCapacity(users.count)
        await withTaskGroup(of: Result<Task<Void, Never>, ValidationFailure>.self) { group in
            var next = 0
            func add() {
                let index = next
                next += 1
                let client = streamsPerClient.map { clients[min(clients.count - 1, index / $0)] } ?? clients[0]
                var request = HTTPClientRequest(url: baseURL + "/v1/events")
                request.headers.add(name: "Authorization", value: authorizations[index])
                let user = users[index]
                group.addTask {
                    do {
                        let response = try await client.execute(request, deadline: .distantFuture)
                        guard response.status == .ok else {
                            let body = try? await response.body.collect(upTo: 1 << 16)
                            return .failure(ValidationFailure("HTTP \(response.status.code) \(body.map { String(buffer: $0) } ?? "")"))
                        }
                        return .success(Task { await read(response, user: user, arrivals: arrivals) })
                    } catch {
                        return .failure(ValidationFailure("\(error)"))
                    }
                }
            }
            while next < min(concurrency, users.count) { add() }
            while let result = await group.next() {
                switch result {
                case .success(let reader): opening.readers.append(reader)
                case .failure(let failure): opening.failures.append(failure.description)
                }
                if next < users.count { add() }
                let done = opening.readers.count + opening.failures.count
                if done.isMultiple(of: 2_000) { Console.line("    \(done) streams opened") }
            }
        }
        return opening
    }

    /// Reads one event stream until it ends, stamping each `timeline` event with its arrival.
    static func read(_ response: HTTPClientResponse, user: String, arrivals: StreamArrivals) async {
        var pending: [UInt8] = []
        do {
            for try await chunk in response.body {
                let now = ContinuousClock.now
                pending.append(contentsOf: chunk.readableBytesView)
                while let end = blockEnd(pending) {
                    let block = Array(pending[..<end])
                    pending.removeFirst(end + 2)
                    guard let version = timelineVersion(block) else { continue }
                    arrivals.record(user: user, version: version, at: now)
                }
            }
        } catch {}
    }

    /// Where the first event block ends (the first blank line).
    private static func blockEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 2 else { return nil }
        for index in 0..<(bytes.count - 1) where bytes[index] == 0x0A && bytes[index + 1] == 0x0A { return index }
        return nil
    }

    /// The `stateVersion` of a `timeline` event's data; nil for a comment or another event.
    private static func timelineVersion(_ block: [UInt8]) -> UInt64? {
        let text = String(decoding: block, as: UTF8.self)
        guard text.contains("event: timeline") else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("data: ") {
            return JSONFieldScanner(Data(line.dropFirst(6).utf8)).unsignedInteger("stateVersion")
        }
        return nil
    }

    struct Tap {
        var user: String
        var version: UInt64
        var sentAt: ContinuousClock.Instant
    }

    /// `RecordTensionIntent` for each user, one every `interval`, straight to intent-handler;
    /// the state version each reply names is what its stream's event shows.
    static func tap(users: [String], interval: Duration, endpoint: String) throws -> [Tap] {
        let codec = WireCodec()
        let client = RequestClient(context: try ZMQContextHolder.shared, endpoint: endpoint, timeoutMilliseconds: 5_000, attempts: 1, security: nil)
        var taps: [Tap] = []
        let start = ContinuousClock.now
        for (index, user) in users.enumerated() {
            let due = start + interval * index
            if due > .now { Thread.sleep(forTimeInterval: (due - .now).asSeconds) }
            let sentAt = ContinuousClock.now
            let reply = try client.request(try PacedIntents.payload(id: UUID().uuidString.lowercased(), user: user, index: index, codec: codec))
            guard let version = JSONFieldScanner(reply).object("body")?.unsignedInteger("version") else {
                throw ValidationFailure("intent-handler answered a tap for \(user) without a version: \(String(decoding: reply, as: UTF8.self))")
            }
            taps.append(Tap(user: user, version: version, sentAt: sentAt))
        }
        return taps
    }
}
