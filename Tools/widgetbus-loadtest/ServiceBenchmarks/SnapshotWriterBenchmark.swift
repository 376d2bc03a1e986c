import ArgumentParser
import BusRuntime
import CommandLineText
import Foundation
import Histogram
import ServiceSupport
import Storage
import Synchronization
import WidgetBusProtocol
import WidgetDomain

#if canImport(Glibc)
import Glibc
#endif

/// Measures a running snapshot-writer fed by intent-handler through timeline-service: the delay
/// from an intent's ack to a snapshot file on disk that reflects its state version — one intent
/// at a time, then under a burst spread over many users — and the snapshot files written per
/// second during the burst.
/// In the same run it measures the two floors under those figures: raw libzmq REQ/REP round
/// trips of the intent's size, and raw atomic writes of a snapshot file's size in the same file
/// system, one at a time and in batches as the writer writes them.
struct SnapshotWriterBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snapshot-writer",
        abstract: "Benchmark snapshot-writer: files written per second and the delay from intent ack to file on disk.",
        discussion: """
            Needs intent-handler, timeline-service and snapshot-writer running, with the same \(EnvironmentSetting.snapshotDirectory.variable) \
            as this command. Linux only: the files are watched with inotify.
            """
    )

    @Option(help: "Intents sent one at a time, each waiting for its file, before the burst.")
    var single = 200

    @Option(help: "Intents in the burst.")
    var intents = 20_000

    @Option(help: "Distinct users, hence snapshot files, the burst is spread over.")
    var users = 200

    @Option(help: "Burst intents in flight.")
    var inFlight = 64

    @Option(help: "Round trips and atomic file writes in each raw baseline.")
    var baseline = 2_000

    @Option(help: "Write the results as JSON to this file.")
    var json: String?

    struct Latency: Codable {
        var samples: Int
        var p50Milliseconds: Double
        var p99Milliseconds: Double
        var p999Milliseconds: Double
        var maxMilliseconds: Double
    }

    struct Results: Codable {
        var single: Latency
        var burstIntents: Int
        var users: Int
        var inFlight: Int
        var burstSeconds: Double
        var intentsPerSecond: Double
        var filesWritten: Int
        var filesPerSecond: Double
        var burst: Latency
        var rawRequestReply: RoundTripMeasurement
        /// Atomic writes of a snapshot-sized file, one after the other.
        var rawAtomicWrite: RoundTripMeasurement
        /// Atomic writes of a snapshot-sized file, as many in flight as snapshot-writer keeps.
        var rawAtomicFilesPerSecond: Double
    }

    /// An intent's reply: the state version it committed, and when it arrived.
    struct Ack {
        var user: Int
        var version: UInt64
        var at: ContinuousClock.Instant
    }

    func run() throws {
        let environment = ProcessInfo.processInfo.environment
        let root = EnvironmentSetting.snapshotDirectory.resolve(in: environment)
        let runID = String(UUID().uuidString.prefix(8)).lowercased()
        let names = (0..<max(1, users)).map { "snapbench-\(runID)-\($0)" }
        let files = try names.map { try SnapshotPath(root: root, user: $0, kind: .tensionCheck).file }
        let client = try PipelinedClient(
            context: try ZMQContextHolder.shared, endpoint: BusEndpoint.intents.resolve(in: environment), security: nil)
        let codec = WireCodec()

        // Every user gets a file first, so that its folder exists to be watched.
        let primed = try send(names.indices.map { ($0, 3) }, names: names, window: inFlight, client: client, codec: codec, tag: "prime")
        try waitUntilOnDisk(primed, files: files, codec: codec)
        let rawRequestReply = try RoundTripMeasurement.rawRequestReply(
            requests: baseline, payloadBytes: try intentPayload(user: 0, level: 3, names: names, codec: codec, tag: "size").count)
        let (rawAtomicWrite, rawAtomicFilesPerSecond) = try measureRawAtomicWrites(
            like: try Data(contentsOf: URL(fileURLWithPath: files[0])), besides: root, runID: runID, files: names.count)
        let watcher = try SnapshotWriteWatcher(files: files)

        var singleAcks: [Ack] = []
        for index in 0..<single {
            let ack = try send([(0, [3, 7, 0][index % 3])], names: names, window: 1, client: client, codec: codec, tag: "single-\(index)")
            try watcher.waitUntil(user: 0, hasVersion: ack[0].version)
            singleAcks += ack
        }

        let burstStart = ContinuousClock.now
        let burstAcks = try send(
            (0..<intents).map { ($0 % names.count, [3, 7, 0, 10, 5][($0 / names.count) % 5]) },
            names: names, window: inFlight, client: client, codec: codec, tag: "burst")
        let lastAck = burstAcks.map(\.at).max() ?? burstStart
        for (user, version) in latestVersions(burstAcks) {
            try watcher.waitUntil(user: user, hasVersion: version)
        }
        let writes = watcher.stop()
        let burstWrites = writes.filter { $0.at >= burstStart }
        let lastWrite = burstWrites.map(\.at).max() ?? burstStart

        let results = Results(
            single: latency(of: singleAcks, writes: writes), burstIntents: intents, users: names.count, inFlight: inFlight,
            burstSeconds: (lastAck - burstStart).asSeconds, intentsPerSecond: Double(intents) / (lastAck - burstStart).asSeconds,
            filesWritten: burstWrites.count, filesPerSecond: Double(burstWrites.count) / (lastWrite - burstStart).asSeconds,
            burst: latency(of: burstAcks, writes: writes), rawRequestReply: rawRequestReply, rawAtomicWrite: rawAtomicWrite,
            rawAtomicFilesPerSecond: rawAtomicFilesPerSecond)
        report(results)
        if let json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(results).write(to: URL(fileURLWithPath: json))
        }
    }

    /// Sends a `RecordTensionIntent` per (user index, level) and returns the acks.
    private func send(
        _ intents: [(user: Int, level: Int)], names: [String], window: Int, client: PipelinedClient, codec: WireCodec, tag: String
    ) throws -> [Ack] {
        let runUsers = Dictionary(uniqueKeysWithValues: names.enumerated().map { ($1, $0) })
        var acks: [Ack] = []
        try client.exchange(count: intents.count, window: window) { index in
            try intentPayload(user: intents[index].user, level: intents[index].level, names: names, codec: codec, tag: "\(tag)-\(index)")
        } reply: { payload in
            let at = ContinuousClock.now
            switch try ReplyDecoding.decode(payload, as: StateRecord.self, codec: codec) {
            case .success(let reply):
                acks.append(Ack(user: runUsers[reply.body.user]!, version: reply.body.version, at: at))
            case .failure(let error):
                throw ValidationError("intent-handler refused a bench intent: \(error.code): \(error.message)")
            }
        }
        return acks
    }

    private func intentPayload(user: Int, level: Int, names: [String], codec: WireCodec, tag: String) throws -> Data {
        try codec.encode(
            Envelope(
                id: "\(names[user])-\(tag)", type: MessageType.recordTension.rawValue, user: names[user],
                body: RecordTensionBody(level: level)))
    }

    /// Atomic writes of `content` into a scratch folder next to the snapshot root (so on the same
    /// file system), over `files` distinct paths: one at a time, then in durable batches of
    /// `files` (``AtomicFileWriter/write(_:)``); the folder is removed afterwards.
    private func measureRawAtomicWrites(
        like content: Data, besides root: String, runID: String, files: Int
    ) throws -> (one: RoundTripMeasurement, filesPerSecond: Double) {
        let scratch = root + "-raw-\(runID)"
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let paths = (0..<max(1, files)).map { "\(scratch)/\($0)/\(WidgetKind.tensionCheck.rawValue).json" }
        let writer = AtomicFileWriter()
        let one = try RoundTripMeasurement.measure(name: "raw atomic file write", requests: baseline, payloadBytes: content.count) {
            try writer.write(content, to: paths[abs($0) % paths.count])
        }
        let started = ContinuousClock.now
        var written = 0
        while written < baseline {
            let batch = paths.prefix(baseline - written).map { (data: content, path: $0) }
            if let failure = writer.write(batch).values.first { throw failure }
            written += batch.count
        }
        return (one, Double(written) / (ContinuousClock.now - started).asSeconds)
    }

    private func waitUntilOnDisk(_ acks: [Ack], files: [String], codec: WireCodec) throws {
        let deadline = ContinuousClock.now + .seconds(30)
        for (user, version) in latestVersions(acks) {
            while (FileManager.default.contents(atPath: files[user])
                .flatMap { try? codec.decode(WidgetSnapshot.Stamp.self, from: $0) }?.stateVersion ?? 0) < version
            {
                guard ContinuousClock.now < deadline else {
                    throw ValidationError("\(files[user]) did not reach state version \(version) in 30 s: is snapshot-writer running?")
                }
                usleep(10_000)
            }
        }
    }

    private func latestVersions(_ acks: [Ack]) -> [Int: UInt64] {
        acks.reduce(into: [:]) { latest, ack in latest[ack.user] = max(latest[ack.user] ?? 0, ack.version) }
    }

    /// For each ack, the time until the first file write of its user holding its version or a newer one.
    private func latency(of acks: [Ack], writes: [SnapshotWriteWatcher.Write]) -> Latency {
        let writesByUser = Dictionary(grouping: writes, by: \.user)
        var histogram = Histogram<UInt64>.latencyMicroseconds()
        for ack in acks {
            guard let written = writesByUser[ack.user]?.first(where: { $0.version >= ack.version }) else { continue }
            _ = histogram.record((written.at - ack.at).asMicroseconds)
        }
        func milliseconds(_ microseconds: UInt64) -> Double { Double(microseconds) / 1_000 }
        return Latency(
            samples: Int(histogram.totalCount), p50Milliseconds: milliseconds(histogram.valueAtPercentile(50)),
            p99Milliseconds: milliseconds(histogram.valueAtPercentile(99)),
            p999Milliseconds: milliseconds(histogram.valueAtPercentile(99.9)), maxMilliseconds: milliseconds(histogram.max))
    }

    private func report(_ results: Results) {
        func line(_ latency: Latency) -> String {
            String(
                format: "p50 %.1f ms, p99 %.1f ms, p99.9 %.1f ms, max %.1f ms (%d acks)", latency.p50Milliseconds,
                latency.p99Milliseconds, latency.p999Milliseconds, latency.maxMilliseconds, latency.samples)
        }
        Console.line("one intent at a time, ack → snapshot file on disk: " + line(results.single))
        Console.line(
            String(
                format: "burst: %d intents over %d users, %d in flight: %.2f s, %.0f intents/s", results.burstIntents,
                results.users, results.inFlight, results.burstSeconds, results.intentsPerSecond))
        Console.line(String(format: "burst: %d snapshot files written, %.0f files/s", results.filesWritten, results.filesPerSecond))
        Console.line("burst, ack → snapshot file on disk: " + line(results.burst))
        let raw = results.rawRequestReply
        Console.line(
            String(
                format: "raw libzmq REQ/REP, %d bytes: %.0f round trips/s, p50 %d µs, p99 %d µs", raw.payloadBytes, raw.perSecond,
                raw.p50Microseconds, raw.p99Microseconds))
        let write = results.rawAtomicWrite
        Console.line(
            String(
                format: "raw atomic write, %d bytes, one at a time: %.0f files/s, p50 %.1f ms, p99 %.1f ms", write.payloadBytes,
                write.perSecond, Double(write.p50Microseconds) / 1_000, Double(write.p99Microseconds) / 1_000))
        Console.line(
            String(
                format: "raw atomic writes, batches of %d: %.0f files/s; snapshot-writer's burst / raw = %.2f", results.users,
                results.rawAtomicFilesPerSecond, results.filesPerSecond / results.rawAtomicFilesPerSecond))
    }
}

/// Sees every snapshot file renamed into place in the watched users' folders, when, and which
/// state version it holds: inotify reports each completed atomic write as one `IN_MOVED_TO`.
final class SnapshotWriteWatcher: Sendable {
    struct Write: Sendable {
        var user: Int
        var version: UInt64
        var at: ContinuousClock.Instant
    }

    private struct Log {
        var writes: [Write] = []
        var latest: [Int: UInt64] = [:]
    }

    private let descriptor: Int32
    private let files: [String]
    private let users: [Int32: Int]
    private let log = Mutex(Log())
    private let stopSignal = StopSignal()
    private let finished = DispatchSemaphore(value: 0)

    /// Watches the folders of `files` (which must exist) from a thread of its own.
    init(files: [String]) throws {
        descriptor = inotify_init1(Int32(IN_CLOEXEC))
        guard descriptor >= 0 else { throw ValidationError("inotify_init1: \(String(cString: strerror(errno)))") }
        var users: [Int32: Int] = [:]
        for (user, file) in files.enumerated() {
            let watch = inotify_add_watch(descriptor, (file as NSString).deletingLastPathComponent, UInt32(IN_MOVED_TO))
            guard watch >= 0 else { throw ValidationError("inotify_add_watch \(file): \(String(cString: strerror(errno)))") }
            users[watch] = user
        }
        self.files = files
        self.users = users
        let thread = Thread { [self] in
            watch()
            finished.signal()
        }
        thread.name = "snapshot-watcher"
        thread.start()
    }

    /// Waits until `user`'s file is seen at `version` or later.
    func waitUntil(user: Int, hasVersion version: UInt64, timeout: Duration = .seconds(30)) throws {
        let deadline = ContinuousClock.now + timeout
        while (log.withLock { $0.latest[user] ?? 0 }) < version {
            guard ContinuousClock.now < deadline else {
                throw ValidationError("\(files[user]) was not written at state version \(version) within \(timeout)")
            }
            usleep(200)
        }
    }

    /// Stops watching and returns every write seen, in order.
    func stop() -> [Write] {
        stopSignal.request()
        finished.wait()
        close(descriptor)
        return log.withLock { $0.writes }
    }

    private func watch() {
        let codec = WireCodec()
        var buffer = [UInt8](repeating: 0, count: 256 * 1024)
        while !stopSignal.isRequested {
            var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 50) > 0 else { continue }
            let count = read(descriptor, &buffer, buffer.count)
            let at = ContinuousClock.now
            guard count > 0 else { continue }
            var moved: [Int] = []  // one entry per completed write
            buffer.withUnsafeBytes { raw in
                var offset = 0
                while offset + MemoryLayout<inotify_event>.size <= count {
                    let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    let name = raw[(offset + MemoryLayout<inotify_event>.size)...].prefix(Int(event.len)).prefix { $0 != 0 }
                    if let user = users[event.wd], (files[user] as NSString).lastPathComponent.utf8.elementsEqual(name) {
                        moved.append(user)
                    }
                    offset += MemoryLayout<inotify_event>.size + Int(event.len)
                }
            }
            var versions: [Int: UInt64] = [:]
            for user in Set(moved) {
                versions[user] = FileManager.default.contents(atPath: files[user])
                    .flatMap { try? codec.decode(WidgetSnapshot.Stamp.self, from: $0) }?.stateVersion
            }
            log.withLock { log in
                for user in moved {
                    guard let version = versions[user] else { continue }
                    log.writes.append(Write(user: user, version: version, at: at))
                    log.latest[user] = max(log.latest[user] ?? 0, version)
                }
            }
        }
    }
}
