import Foundation
import ServiceSupport
import Synchronization
import Testing
import WidgetBusProtocol
import WidgetDomain
import ZeroMQ

/// Services killed with SIGKILL one after another under load: no published timeline and no
/// snapshot file ever shows an older state or metrics version than one already shown.
@Suite(.serialized, .blockingThreads)
struct NoRegressionAcrossRestartsTests {
    static let users = (0..<8).map { "restart-\($0)" }

    @Test func noTimelineOrFileGoesBackwardsWhileEachServiceIsKilledUnderLoad() throws {
        let bus = try BusFixture()
        for service in [BusFixture.Service.intentHandler, .metricsIngest, .timelineService, .snapshotWriter] {
            try bus.start(service)
        }
        let watcher = try VersionWatcher(eventsEndpoint: bus.endpoint(.timelineEvents), snapshotRoot: bus.snapshotRoot.path)
        let load = try PipelineLoad(intentsEndpoint: bus.endpoint(.intents), metricsEndpoint: bus.endpoint(.metrics), users: Self.users)

        func awaitProgress(_ what: String) throws {
            let before = watcher.advances
            try bus.waitUntil("\(what): timelines and files advance 30 more times each", timeout: 20) {
                let now = watcher.advances
                return now.events >= before.events + 30 && now.files >= before.files + 30
            }
        }
        try awaitProgress("the pipeline runs")
        for round in 1...3 {
            for service in [BusFixture.Service.timelineService, .snapshotWriter, .metricsIngest, .intentHandler] {
                bus.kill9(service)
                try bus.start(service)
                try awaitProgress("round \(round): the pipeline runs again after \(service.rawValue) was killed")
            }
        }
        let acknowledged = load.stop()
        let seen = watcher.stop()

        #expect(seen.regressions.isEmpty, "went backwards:\n\(seen.regressions.prefix(20).joined(separator: "\n"))")
        #expect(acknowledged > 100, "the load must have gone on between the kills")
        for source in [VersionWatcher.Source.event, .file] {
            let highest = seen.highest[source] ?? [:]
            #expect(Set(highest.keys.map(\.kind)).isSuperset(of: [.tensionCheck, .stressMonitor]))
            #expect(highest.values.contains { ($0.metricsVersion ?? 0) > 0 }, "metrics reached the Stress Monitor widget")
        }
        for user in Self.users {
            let stored = try #require(try bus.storedState(.tensionCheck, user: user))
            _ = try bus.tensionSnapshot(user: user, version: stored.version)
        }
    }
}

/// Intents of three apps and stress samples for a few users, sent at a steady pace from a thread
/// of its own for as long as it runs. It never waits for a reply: while intent-handler is down
/// its requests queue in the DEALER (or are skipped when the queue is full), as a client's
/// would. Counts the intents acknowledged with a state.
final class PipelineLoad: Sendable {
    private let stopSignal = StopSignal()
    private let acknowledged = Mutex(0)
    private let finished = DispatchSemaphore(value: 0)

    init(intentsEndpoint: String, metricsEndpoint: String, users: [String]) throws {
        let context = try ZMQContext()
        let thread = Thread { [self] in
            defer {
                context.terminate()
                finished.signal()
            }
            guard let intents = try? connectedSocket(context, .dealer, intentsEndpoint),
                let metrics = try? connectedSocket(context, .push, metricsEndpoint)
            else { return }
            defer {
                intents.close()
                metrics.close()
            }
            var step = 0
            while !stopSignal.isRequested {
                let user = users[step % users.count]
                switch (step / users.count) % 4 {
                case 0: Self.send(intents, "RecordTensionIntent", user, #"{"level":\#([3, 7, 10][step % 3])}"#)
                case 1: Self.send(intents, "RecordStressMeasurement", user, #"{"stressLevel":\#(step % 100)}"#)
                case 2: Self.send(intents, "SetTimeZone", user, #"{"timeZone":"\#(["Europe/Paris", "Asia/Tokyo"][step % 2])"}"#)
                default:
                    let sample = sampleLine("stress", user: user, takenAt: Date(), #""score":\#(step % 100)"#)
                    _ = try? metrics.send([Data(RawClient.envelope(type: "MetricSample", user: nil, body: sample).utf8)], dontWait: true)
                }
                step += 1
                // Paces the load by waiting for replies: about 250 messages a second.
                guard (try? ZMQPoller.poll([(intents, .readable)], timeoutMilliseconds: 4)) != nil else { break }
                while let frames = try? intents.receiveMessage(dontWait: true), let reply = frames.last {
                    if JSONFieldScanner(reply).string("type") == MessageType.stateReply.rawValue {
                        acknowledged.withLock { $0 += 1 }
                    }
                }
            }
        }
        thread.start()
    }

    private static func send(_ intents: ZMQSocket, _ type: String, _ user: String, _ body: String) {
        _ = try? intents.send([Data(), Data(RawClient.envelope(type: type, user: user, body: body).utf8)], dontWait: true)
    }

    /// Stops sending; returns how many intents were acknowledged with a state.
    func stop() -> Int {
        stopSignal.request()
        finished.wait()
        return acknowledged.withLock { $0 }
    }
}

/// Follows timeline-service's `TimelineChanged` events and re-reads every snapshot file between
/// them, keeping per widget the highest state and metrics versions shown so far; any event or
/// file below them is a regression.
final class VersionWatcher: Sendable {
    struct Widget: Hashable, Sendable {
        var user: String
        var kind: WidgetKind
    }

    struct Versions: Sendable {
        var stateVersion: UInt64
        var metricsVersion: UInt64?
    }

    /// Where versions were shown: timelines and files are followed apart, as a file lags
    /// behind the event of the same change by its coalescing delay.
    enum Source: String, Sendable {
        case event, file
    }

    struct Seen: Sendable {
        /// Events and file reads that showed a widget at a higher version than before.
        var advances: [Source: Int] = [:]
        var highest: [Source: [Widget: Versions]] = [:]
        var regressions: [String] = []

        /// Records `versions` shown by `source` for `widget`, and a regression if either is below
        /// the highest that source showed before.
        mutating func record(_ widget: Widget, _ versions: Versions, source: Source) {
            let shown = (state: versions.stateVersion, metrics: versions.metricsVersion ?? 0)
            guard let before = highest[source]?[widget] else {
                highest[source, default: [:]][widget] = versions
                advances[source, default: 0] += 1
                return
            }
            let highestBefore = (state: before.stateVersion, metrics: before.metricsVersion ?? 0)
            if shown.state < highestBefore.state || shown.metrics < highestBefore.metrics {
                regressions.append(
                    "\(source.rawValue) \(widget.kind.rawValue)/\(widget.user): state \(shown.state) metrics \(shown.metrics)"
                        + " after state \(highestBefore.state) metrics \(highestBefore.metrics)")
            }
            if shown.state > highestBefore.state || shown.metrics > highestBefore.metrics {
                advances[source, default: 0] += 1
                highest[source]![widget] = Versions(
                    stateVersion: max(shown.state, highestBefore.state), metricsVersion: max(shown.metrics, highestBefore.metrics))
            }
        }
    }

    private let state = Mutex(Seen())
    private let stopSignal = StopSignal()
    private let finished = DispatchSemaphore(value: 0)

    init(eventsEndpoint: String, snapshotRoot: String) throws {
        let context = try ZMQContext()
        let thread = Thread { [self] in
            defer {
                context.terminate()
                finished.signal()
            }
            guard let subscriber = try? connectedSocket(context, .sub, eventsEndpoint, subscribingTo: Topic.timelinePrefix)
            else { return }
            defer { subscriber.close() }
            while !stopSignal.isRequested {
                guard let readable = try? ZMQPoller.isReadable(subscriber, waitingMilliseconds: 20) else { break }
                if readable {
                    while let frames = try? subscriber.receiveMessage(dontWait: true), let payload = frames.last {
                        guard let timeline = JSONFieldScanner(payload).object("body")?.object("timeline"),
                            let shown = Self.versions(of: timeline)
                        else { continue }
                        state.withLock { $0.record(shown.widget, shown.versions, source: .event) }
                    }
                }
                readFiles(under: snapshotRoot)
            }
        }
        thread.start()
    }

    /// How many times timelines and files have advanced so far.
    var advances: (events: Int, files: Int) {
        state.withLock { ($0.advances[.event] ?? 0, $0.advances[.file] ?? 0) }
    }

    func stop() -> Seen {
        stopSignal.request()
        finished.wait()
        return state.withLock { $0 }
    }

    private func readFiles(under root: String) {
        let files = FileManager.default
        for user in (try? files.contentsOfDirectory(atPath: root)) ?? [] {
            for name in (try? files.contentsOfDirectory(atPath: "\(root)/\(user)")) ?? [] where name.hasSuffix(".json") {
                guard let data = files.contents(atPath: "\(root)/\(user)/\(name)"), let shown = Self.versions(of: JSONFieldScanner(data))
                else { continue }
                state.withLock { $0.record(shown.widget, shown.versions, source: .file) }
            }
        }
    }

    /// The widget and versions of a timeline body or snapshot file (both carry them flat).
    private static func versions(of object: JSONFieldScanner) -> (widget: Widget, versions: Versions)? {
        guard let user = object.string("user"), let kind = object.string("kind").flatMap(WidgetKind.init(rawValue:)),
            let stateVersion = object.unsignedInteger("stateVersion")
        else { return nil }
        return (Widget(user: user, kind: kind), Versions(stateVersion: stateVersion, metricsVersion: object.unsignedInteger("metricsVersion")))
    }
}

/// A socket of `type` with no linger, connected to `endpoint` (a SUB socket subscribed to `topic` first).
private func connectedSocket(_ context: ZMQContext, _ type: ZMQSocketType, _ endpoint: String, subscribingTo topic: String? = nil) throws
    -> ZMQSocket
{
    let socket = try ZMQSocket(context: context, type: type)
    try socket.setLinger(milliseconds: 0)
    if let topic { try socket.subscribe(topic) }
    try socket.connect(endpoint)
    return socket
}
