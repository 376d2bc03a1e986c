import AsyncHTTPClient
import Foundation
import Histogram
import NIOCore
import NIOHTTP1
import ServiceSupport
import WidgetBusProtocol

#if canImport(Glibc)
import Glibc
#endif

/// One closed-loop run of requests as fast as the gateway answers them: requests per second, the
/// gateway's CPU per request (`/proc/<pid>/stat` around the run) and the client's.
struct ThroughputRun: Codable, Sendable {
    /// `timeline 304` (a conditional GET answered from the gateway's published editions) or
    /// `healthz` (the baseline: the same server, TLS and HTTP stack, no token, no lookup).
    var target: String
    var client: String
    var round: Int
    var requests: Int
    /// Answers with the status expected (304, or 200 for the baseline).
    var expected: Int
    var otherStatuses: [String: Int]
    var seconds: Double
    var requestsPerSecond: Double
    var gatewayCPUSeconds: Double
    var gatewayCPUMillisecondsPerRequest: Double
    /// The load generator's own CPU per request (this process, or wrk's).
    var clientCPUMillisecondsPerRequest: Double?
    var p50Milliseconds: Double?
    var p99Milliseconds: Double?
    /// Bytes the client read per answer (wrk only): a 304 is headers alone, a timeline kilobytes.
    var bytesPerAnswer: Double?
}

/// The conditional GET of a timeline: users whose timeline the gateway has followed, each with
/// the `ETag` of it; then as many `If-None-Match` GETs as the gateway answers.
enum ConditionalGets {
    struct Tagged: Sendable {
        var subject: String
        var authorization: String
        var path: String
        var etag: String
    }

    /// For each subject: a tap through the gateway, the timeline read at that version (its
    /// `ETag`), then conditional GETs until the gateway answers `304` from its own copy.
    static func prepare(client: HTTPClient, baseURL: String, subjects: [String], issuer: BenchIssuer) async throws -> [Tagged] {
        var tagged: [Tagged] = []
        for subject in subjects {
            let authorization = "Bearer " + (try issuer.token(subject: subject))
            var post = HTTPClientRequest(url: baseURL + "/v1/intents")
            post.method = .POST
            post.headers.add(name: "Authorization", value: authorization)
            post.headers.add(name: "Content-Type", value: "application/json")
            post.body = .bytes(ByteBuffer(string: #"{"type":"RecordTensionIntent","body":{"level":5}}"#))
            let posted = try await client.execute(post, timeout: .seconds(10))
            let reply = try await posted.body.collect(upTo: 1 << 20)
            guard posted.status == .ok, let version = JSONFieldScanner(Data(reply.readableBytesView)).object("body")?.unsignedInteger("version")
            else { throw ValidationFailure("POST /v1/intents for \(subject) answered \(posted.status): \(String(buffer: reply))") }
            let path = "/v1/widgets/TensionCheckWidget/timeline"
            var get = HTTPClientRequest(url: baseURL + path + "?minimumVersion=\(version)")
            get.headers.add(name: "Authorization", value: authorization)
            let timeline = try await client.execute(get, timeout: .seconds(10))
            _ = try await timeline.body.collect(upTo: 1 << 20)
            guard timeline.status == .ok, let etag = timeline.headers.first(name: "ETag") else {
                throw ValidationFailure("GET \(path) for \(subject) answered \(timeline.status) without an ETag")
            }
            tagged.append(Tagged(subject: subject, authorization: authorization, path: path, etag: etag))
        }
        try await awaitNotModified(client: client, baseURL: baseURL, tagged: tagged)
        return tagged
    }

    /// Waits until the gateway answers each tag `304` (its copy follows the published events by
    /// a few milliseconds; a gateway just started, its first snapshot).
    static func awaitNotModified(client: HTTPClient, baseURL: String, tagged: [Tagged]) async throws {
        for entry in tagged {
            let deadline = ContinuousClock.now + .seconds(15)
            while true {
                let response = try await client.execute(conditional(baseURL: baseURL, entry), timeout: .seconds(10))
                _ = try await response.body.collect(upTo: 1 << 20)
                if response.status == .notModified { break }
                guard ContinuousClock.now < deadline else {
                    throw ValidationFailure("GET \(entry.path) with If-None-Match \(entry.etag) for \(entry.subject) never answered 304 (last \(response.status))")
                }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
    }

    static func conditional(baseURL: String, _ entry: Tagged) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: baseURL + entry.path)
        request.headers.add(name: "Authorization", value: entry.authorization)
        request.headers.add(name: "If-None-Match", value: entry.etag)
        return request
    }

    /// `inFlight` workers, each sending its next request when its last is answered, for
    /// `seconds`, round-robin over `clients`; worker `w` sends `requests[w % requests.count]`.
    static func closedLoop(
        target: String, clientName: String, round: Int, clients: [HTTPClient], requests: [HTTPClientRequest], expected: HTTPResponseStatus,
        inFlight: Int, seconds: Double, gatewayPID: Int32
    ) async -> ThroughputRun {
        struct Tally {
            var latency = Histogram<UInt64>.latencyMicroseconds()
            var expected = 0
            var other: [String: Int] = [:]
        }
        let tally = Locked(Tally())
        let cpuBefore = ProcessFigures.cpuSeconds(of: gatewayPID) ?? 0
        let ownBefore = ProcessFigures.ownCPUSeconds
        let start = ContinuousClock.now
        let end = start + .nanoseconds(Int64(seconds * 1e9))
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<inFlight {
                let client = clients[worker % clients.count]
                let request = requests[worker % requests.count]
                group.addTask {
                    var local = Tally()
                    while ContinuousClock.now < end {
                        let sent = ContinuousClock.now
                        do {
                            let response = try await client.execute(request, timeout: .seconds(10))
                            _ = try await response.body.collect(upTo: 1 << 20)
                            if response.status == expected { local.expected += 1 } else { local.other["\(response.status.code)", default: 0] += 1 }
                        } catch {
                            local.other["\(type(of: error))", default: 0] += 1
                        }
                        _ = local.latency.record((ContinuousClock.now - sent).asMicroseconds)
                    }
                    tally.withLock { tally in
                        tally.expected += local.expected
                        tally.other.merge(local.other, uniquingKeysWith: +)
                        tally.latency.add(local.latency)
                    }
                }
            }
        }
        let elapsed = (ContinuousClock.now - start).asSeconds
        let cpu = (ProcessFigures.cpuSeconds(of: gatewayPID) ?? 0) - cpuBefore
        let own = ProcessFigures.ownCPUSeconds - ownBefore
        let result = tally.withLock { $0 }
        let total = result.expected + result.other.values.reduce(0, +)
        return ThroughputRun(
            target: target, client: clientName, round: round, requests: total, expected: result.expected, otherStatuses: result.other,
            seconds: elapsed, requestsPerSecond: Double(total) / elapsed, gatewayCPUSeconds: cpu,
            gatewayCPUMillisecondsPerRequest: cpu * 1_000 / Double(max(1, total)),
            clientCPUMillisecondsPerRequest: own * 1_000 / Double(max(1, total)),
            p50Milliseconds: Double(result.latency.valueAtPercentile(50)) / 1_000, p99Milliseconds: Double(result.latency.valueAtPercentile(99)) / 1_000,
            bytesPerAnswer: nil)
    }

    /// wrk (HTTP/1.1, keep-alive; over TLS for an https URL) with a Lua script setting the
    /// headers: the same measurement from a client written in C.
    static func wrk(
        executable: String, target: String, round: Int, url: String, headers: [(String, String)], threads: Int, connections: Int,
        seconds: Int, gatewayPID: Int32, scriptDirectory: URL
    ) throws -> ThroughputRun {
        let script = scriptDirectory.appendingPathComponent("wrk-\(UUID().uuidString.prefix(8)).lua")
        let lua = headers.map { #"wrk.headers["\#($0.0)"] = "\#($0.1.replacingOccurrences(of: "\"", with: "\\\""))""# }.joined(separator: "\n")
        try (lua + "\n").write(to: script, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: script) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["-t", "\(threads)", "-c", "\(connections)", "-d", "\(seconds)s", "--latency", "-s", script.path, url]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        let cpuBefore = ProcessFigures.cpuSeconds(of: gatewayPID) ?? 0
        var usageBefore = rusage()
        getrusage(__rusage_who_t(RUSAGE_CHILDREN.rawValue), &usageBefore)
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let cpu = (ProcessFigures.cpuSeconds(of: gatewayPID) ?? 0) - cpuBefore
        var usageAfter = rusage()
        getrusage(__rusage_who_t(RUSAGE_CHILDREN.rawValue), &usageAfter)
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0, let summary = WrkSummary(text) else {
            throw ValidationFailure("wrk failed (\(process.terminationStatus)): \(text)")
        }
        func cpuSeconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        let wrkCPU = cpuSeconds(usageAfter.ru_utime) + cpuSeconds(usageAfter.ru_stime) - cpuSeconds(usageBefore.ru_utime) - cpuSeconds(usageBefore.ru_stime)
        let expected = summary.requests - summary.non2xx3xx - summary.socketErrors
        var other: [String: Int] = [:]
        if summary.non2xx3xx > 0 { other["non-2xx/3xx"] = summary.non2xx3xx }
        if summary.socketErrors > 0 { other["socket errors"] = summary.socketErrors }
        return ThroughputRun(
            target: target, client: "wrk -t\(threads) -c\(connections), HTTP/1.1\(url.hasPrefix("https") ? " over TLS" : "")", round: round,
            requests: summary.requests, expected: expected, otherStatuses: other, seconds: summary.seconds,
            requestsPerSecond: summary.requestsPerSecond, gatewayCPUSeconds: cpu,
            gatewayCPUMillisecondsPerRequest: cpu * 1_000 / Double(max(1, summary.requests)),
            clientCPUMillisecondsPerRequest: wrkCPU * 1_000 / Double(max(1, summary.requests)),
            p50Milliseconds: summary.p50Milliseconds, p99Milliseconds: summary.p99Milliseconds,
            bytesPerAnswer: summary.bytesRead / Double(max(1, summary.requests)))
    }
}

/// What wrk prints, read: `N requests in Ts, X MB read`, the latency distribution, errors and
/// non-2xx/3xx answers, `Requests/sec`.
struct WrkSummary {
    var requests = 0
    var seconds = 0.0
    var bytesRead = 0.0
    var requestsPerSecond = 0.0
    var non2xx3xx = 0
    var socketErrors = 0
    var p50Milliseconds: Double?
    var p99Milliseconds: Double?

    init?(_ text: String) {
        var found = false
        for line in text.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            let words = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            if line.contains("requests in"), words.count >= 5, let count = Int(words[0]) {
                requests = count
                seconds = Self.duration(words[3].trimmingCharacters(in: CharacterSet(charactersIn: ","))) ?? 0
                bytesRead = Self.bytes(words[4]) ?? 0
                found = true
            } else if line.hasPrefix("Requests/sec:"), words.count >= 2 {
                requestsPerSecond = Double(words[1]) ?? 0
            } else if line.hasPrefix("Non-2xx or 3xx responses:"), let count = words.last.flatMap({ Int($0) }) {
                non2xx3xx = count
            } else if line.hasPrefix("Socket errors:") {
                // Socket errors: connect 0, read 0, write 0, timeout 0
                socketErrors = line.split(whereSeparator: { $0 == "," || $0 == ":" }).compactMap { Int($0.split(separator: " ").last ?? "") }.reduce(0, +)
            } else if words.count == 2, words[0] == "50%" {
                p50Milliseconds = Self.duration(words[1]).map { $0 * 1_000 }
            } else if words.count == 2, words[0] == "99%" {
                p99Milliseconds = Self.duration(words[1]).map { $0 * 1_000 }
            }
        }
        guard found else { return nil }
    }

    /// `812.00us`, `1.23ms`, `10.00s`, `2.00m` in seconds.
    static func duration(_ text: String) -> Double? {
        for (unit, scale) in [("us", 1e-6), ("ms", 1e-3), ("s", 1.0), ("m", 60.0), ("h", 3_600.0)] where text.hasSuffix(unit) {
            if let value = Double(text.dropLast(unit.count)) { return value * scale }
        }
        return nil
    }

    /// `234.56MB` in bytes.
    static func bytes(_ text: String) -> Double? {
        for (unit, scale) in [("KB", 1024.0), ("MB", 1024.0 * 1024), ("GB", 1024.0 * 1024 * 1024), ("B", 1.0)] where text.hasSuffix(unit) {
            if let value = Double(text.dropLast(unit.count)) { return value * scale }
        }
        return nil
    }
}
