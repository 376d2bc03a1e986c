import BusRuntime
import Foundation
import ServiceSupport
import Storage
import Synchronization
import Testing
import WidgetBusProtocol
import WidgetDomain
import ZeroMQ

#if canImport(Glibc)
import Glibc
#endif

/// snapshot-writer as the widgets rely on it: each file is what the widget would render from the
/// state it names, readable at any instant, current after crashes, stops and hand deletions, and
/// never outside its root.
@Suite(.serialized, .blockingThreads)
struct SnapshotWriterTests {
    /// Waits until snapshot-writer has taken a message of timeline-service's publisher (its
    /// heartbeat comes once a second): its subscription is in place, so no event is missed.
    func waitForTimelineEvents(_ bus: BusFixture, _ metricsURL: String) throws {
        try bus.waitUntil("snapshot-writer's subscription is in place", timeout: 10) {
            try PrometheusText.scrape(metricsURL).value("widgetbus_bus_messages_received_total", ["endpoint": "timeline_events"]) ?? 0 > 0
        }
    }

    @Test func eachSnapshotIsTheTimelineOfTheSameStateVersion() throws {
        let bus = try BusFixture()
        try bus.start(.intentHandler)
        try bus.start(.timelineService)
        try bus.start(.snapshotWriter)

        #expect(try bus.sendRaw("SetTimeZone", user: "tara", body: #"{"timeZone":"Europe/Paris"}"#).status == 0)
        let picker = try bus.send(.recordTension, user: "tara", body: #"{"level":3}"#)
        #expect(try phasesMatchingTimelineService(bus, user: "tara", version: picker.version) == ["picker"])
        let suggested = try bus.send(.recordTension, user: "tara", body: #"{"level":10}"#)
        #expect(try phasesMatchingTimelineService(bus, user: "tara", version: suggested.version) == ["suggestion"])
        guard case .tensionCheck(let state) = suggested.state, case .suggestion(_, let checkIn) = state.phase else {
            Issue.record("expected a suggestion, got \(suggested.state)")
            return
        }
        let done = try bus.send(.markInterventionDone, user: "tara", body: #"{"checkInId":"\#(checkIn.id)"}"#)
        #expect(try phasesMatchingTimelineService(bus, user: "tara", version: done.version) == ["completed", "picker"])
        #expect(try bus.tensionSnapshot(user: "tara", version: done.version).timeZone == "Europe/Paris")

        // A new zone changes what the widget shows (its local days) without a new state version.
        #expect(try bus.sendRaw("SetTimeZone", user: "tara", body: #"{"timeZone":"Asia/Tokyo"}"#).status == 0)
        try bus.waitUntil("the snapshot is rewritten in the new zone", timeout: 10) {
            try bus.snapshot(.tensionCheck, user: "tara", as: TensionCheckPhase.self)?.timeZone == "Asia/Tokyo"
        }
        #expect(try bus.snapshot(.tensionCheck, user: "tara", as: TensionCheckPhase.self)?.stateVersion == done.version)

        let file = bus.snapshotURL(.tensionCheck, user: "tara")
        let printed = try bus.widgetctl("snapshot", "TensionCheckWidget", "--user", "tara")
        #expect(printed.status == 0)
        #expect(printed.stdout == String(decoding: try Data(contentsOf: file), as: UTF8.self) + "\n")
        #expect(try permissions(file) == 0o644)
        #expect(try permissions(file.deletingLastPathComponent()) == 0o755)
        #expect(try permissions(bus.snapshotRoot) == 0o755)
    }

    @Test func everyKindsSnapshotIsWhatTimelineServiceRenders() throws {
        let bus = try BusFixture()
        try bus.start(.intentHandler)
        try bus.start(.metricsIngest)
        try bus.start(.timelineService)
        try bus.start(.snapshotWriter)

        let messages: [(MessageType, String)] = [
            (.recordTension, #"{"level":7}"#),
            (.updateGoals, #"{"calorieTarget":2000}"#),
            (.updateNutrition, #"{"calories":1200,"protein":80,"carbs":150,"fat":40}"#),
            (.createGoal, #"{"title":"Ship the snapshot writer"}"#),
            (.recordStressMeasurement, #"{"stressLevel":38,"hrvMilliseconds":52}"#),
            (.updateJitterScores, #"{"crashRiskScore":72,"focusScore":64,"currentCaffeineLevel":120}"#),
        ]
        var versions: [WidgetApp: UInt64] = [:]
        for (type, body) in messages {
            let record = try bus.send(type, user: "kim", body: body)
            versions[record.app] = record.version
        }
        #expect(Set(versions.keys) == Set(WidgetApp.allCases), "a message for every app")
        try bus.ingest("stress", "--user", "kim", "--score", "55", "--taken-at", WireDate.format(MetricsIngestTests.minute(2)))
        for kind in WidgetKind.allCases {
            try expectSnapshotMatchesTimelineService(
                bus, kind, user: "kim", version: try #require(versions[kind.app]), metricsVersion: kind.showsMetrics ? 1 : nil)
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: bus.snapshotRoot.appendingPathComponent("kim").path)
        let kinds = Set(WidgetKind.allCases.map { "\($0.rawValue).json" })
        #expect(Set(files.filter { !$0.hasPrefix(".") }) == kinds)
        #expect(files.filter { $0.hasPrefix(".") }.allSatisfy { kinds.contains(String($0.dropFirst().dropLast(".spare".count))) }, "hidden: spares only")
    }

    @Test func aTimelineThatRunsOutIsRewrittenWithoutAnyChange() throws {
        let bus = try BusFixture()
        try bus.start(.intentHandler)
        try bus.start(.timelineService)
        try bus.start(.snapshotWriter)
        let suggested = try bus.send(.recordTension, user: "zed", body: #"{"level":10}"#)
        guard case .tensionCheck(let state) = suggested.state, case .suggestion(_, let checkIn) = state.phase else {
            Issue.record("expected a suggestion, got \(suggested.state)")
            return
        }
        let done = try bus.send(.markInterventionDone, user: "zed", body: #"{"checkInId":"\#(checkIn.id)"}"#)
        let completed = try bus.tensionSnapshot(user: "zed", version: done.version)
        #expect(completed.timeline.entries.map(\.content.name) == ["completed", "picker"])
        let resetAt = try #require(completed.timeline.entries.last?.date)
        #expect(completed.validUntil == resetAt, "the file runs out when its timeline does: at the reset")

        // No intent follows; once the reset has passed the file shows the picker of the same state.
        var refreshed: DecodedSnapshot<TensionCheckPhase>?
        try bus.waitUntil("the file is rewritten after its timeline ran out", timeout: 15) {
            refreshed = try bus.snapshot(.tensionCheck, user: "zed", as: TensionCheckPhase.self)
            return refreshed?.timeline.entries.first?.content.name == "picker"
        }
        let picker = try #require(refreshed)
        #expect(picker.stateVersion == done.version)
        #expect(picker.generatedAt >= resetAt)
        #expect(try #require(picker.validUntil) > picker.generatedAt.addingTimeInterval(60), "the picker's timeline lasts")
    }

    @Test func aBurstOnOneFileIsCoalescedIntoFewWritesEndingAtTheLastState() throws {
        let bus = try BusFixture()
        try bus.start(.intentHandler)
        try bus.start(.timelineService)
        let metricsURL = try bus.startServingMetrics(.snapshotWriter, extraEnvironment: ["WIDGETBUS_SNAPSHOT_COALESCE_MS": "400"])
        try waitForTimelineEvents(bus, metricsURL)
        let burst = try IntentBurst(endpoint: bus.endpoint(.intents), users: ["cora"], count: 300)
        try bus.waitUntil("the burst is answered", timeout: 30) { burst.isFinished }
        let final = try #require(try burst.finalStates()["cora"])
        _ = try bus.tensionSnapshot(user: "cora", version: final.version)

        let metrics = try PrometheusText.scrape(metricsURL)
        let written = try #require(metrics.value("widgetbus_snapshot_files_written_total"))
        #expect(written >= 1)
        #expect(written <= 15, "300 intents on one file cost \(written) writes with a 400 ms coalescing delay")
        #expect(try #require(metrics.value("widgetbus_snapshot_changes_coalesced_total")) >= 1)
        #expect(bus.stop(.snapshotWriter) == 0)
    }

    @Test func everyReadParsesThroughRepeatedKillsAndTheFilesEndAtTheFinalState() throws {
        let bus = try BusFixture()
        try bus.start(.intentHandler)
        try bus.start(.timelineService)
        try bus.start(.snapshotWriter)
        let users = (0..<4).map { "burst-\($0)" }
        let reader = SnapshotReader(files: users.map { bus.snapshotURL(.tensionCheck, user: $0).path })
        let burst = try IntentBurst(endpoint: bus.endpoint(.intents), users: users, count: 3_000)

        var kills = 0
        while !burst.isFinished {
            usleep(UInt32.random(in: 150_000...300_000))
            bus.kill9(.snapshotWriter)
            kills += 1
            try bus.start(.snapshotWriter)
        }
        let finalStates = try burst.finalStates()
        for (user, record) in finalStates {
            let snapshot = try bus.snapshot(.tensionCheck, user: user, as: JSONValue.self, version: record.version)
            let expected = record.state.timeline(for: .tensionCheck, now: snapshot.generatedAt, timeZone: .gmt)
            expectSameTimeline(snapshot, try bus.codec.decode(DecodedSnapshot<JSONValue>.Timeline.self, from: bus.codec.encode(expected)))
        }
        let reads = reader.stop()

        #expect(kills >= 3, "the burst ended before snapshot-writer was killed repeatedly")
        #expect(finalStates.count == users.count)
        #expect(reads.parsed > 100)
        #expect(reads.failures.isEmpty, "\(reads.failures.count) of \(reads.parsed) reads failed: \(reads.failures.prefix(3))")
        let leftovers = try FileManager.default.subpathsOfDirectory(atPath: bus.snapshotRoot.path)
            .filter { AtomicFileWriter.isTemporaryFile(($0 as NSString).lastPathComponent) }
        #expect(leftovers.isEmpty, "temporary files of killed writes must be removed at start")
    }

    @Test func catchesUpAfterAStopRecreatesDeletedFilesAndLeavesCurrentOnesAlone() throws {
        let bus = try BusFixture()
        let quickDiskCheck = ["WIDGETBUS_SNAPSHOT_DISK_CHECK_S": "1"]
        try bus.start(.intentHandler)
        try bus.start(.timelineService)
        try bus.start(.snapshotWriter, extraEnvironment: quickDiskCheck)
        var versions: [String: UInt64] = [:]
        for (user, level) in [("uma", 3), ("vic", 7), ("wes", 0)] {
            versions[user] = try bus.send(.recordTension, user: user, body: #"{"level":\#(level)}"#).version
            _ = try bus.tensionSnapshot(user: user, version: versions[user]!)
        }
        let untouched = inode(bus.snapshotURL(.tensionCheck, user: "wes"))
        #expect(bus.stop(.snapshotWriter) == 0, "SIGTERM must end snapshot-writer with status 0")

        let missed = try bus.send(.recordTension, user: "uma", body: #"{"level":10}"#)
        try FileManager.default.removeItem(at: bus.snapshotURL(.tensionCheck, user: "vic"))
        try bus.start(.snapshotWriter, extraEnvironment: quickDiskCheck)

        let caughtUp = try bus.tensionSnapshot(user: "uma", version: missed.version)
        #expect(caughtUp.timeline.entries.map(\.content.name) == ["suggestion"])
        _ = try bus.tensionSnapshot(user: "vic", version: versions["vic"]!)
        #expect(inode(bus.snapshotURL(.tensionCheck, user: "wes")) == untouched, "a current file is not rewritten")

        try FileManager.default.removeItem(at: bus.snapshotURL(.tensionCheck, user: "wes"))
        _ = try bus.tensionSnapshot(user: "wes", version: versions["wes"]!)  // at the next disk check
    }

    @Test func aStopWritesWhatIsStillCoalescing() throws {
        let bus = try BusFixture()
        try bus.start(.intentHandler)
        try bus.start(.timelineService)
        let metricsURL = try bus.startServingMetrics(.snapshotWriter, extraEnvironment: ["WIDGETBUS_SNAPSHOT_COALESCE_MS": "5000"])
        try waitForTimelineEvents(bus, metricsURL)
        let record = try bus.send(.recordTension, user: "xena", body: #"{"level":5}"#)
        try bus.waitUntil("the timeline waits for its write (5 s)", timeout: 10) {
            try PrometheusText.scrape(metricsURL).value("widgetbus_snapshot_waiting_bytes") ?? 0 > 0
        }
        #expect(try bus.snapshot(.tensionCheck, user: "xena", as: TensionCheckPhase.self) == nil)

        #expect(bus.stop(.snapshotWriter) == 0)
        #expect(try bus.snapshot(.tensionCheck, user: "xena", as: TensionCheckPhase.self)?.stateVersion == record.version)
    }

    @Test func pathTraversalUserIDsNeverBecomeFiles() throws {
        let bus = try BusFixture()
        try bus.start(.intentHandler)
        try bus.start(.timelineService)
        try bus.start(.snapshotWriter)
        let raw = try RawClient(endpoint: bus.endpoint(.intents))
        for user in ["..", "../escaped", "../../escaped", "a/../../escaped", "/tmp/escaped", #"nul\u0000byte"#, #"back\\slash"#] {
            let payload = RawClient.envelope(type: "RecordTensionIntent", user: user, body: #"{"level":3}"#)
            #expect(try raw.errorReply(toJSON: payload)?.body.code == .invalidUser, "user \(user)")
        }
        let record = try bus.send(.recordTension, user: "yara", body: #"{"level":3}"#)
        _ = try bus.tensionSnapshot(user: "yara", version: record.version)  // the refused ones came first

        #expect(try FileManager.default.contentsOfDirectory(atPath: bus.snapshotRoot.path).filter { !$0.hasPrefix(".") } == ["yara"])
        for escaped in ["../escaped", "../../escaped"] {
            #expect(!FileManager.default.fileExists(atPath: bus.snapshotRoot.appendingPathComponent(escaped).standardized.path))
        }
        let unsafe = try bus.widgetctl("snapshot", "TensionCheckWidget", "--user", "../data")
        #expect(unsafe.status == 1)
        #expect(unsafe.stderr.contains("refused as a snapshot path"))
        let missing = try bus.widgetctl("snapshot", "TensionCheckWidget", "--user", "nobody")
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("no snapshot at"))
    }

    @Test func unsafeUserIDsAreRefusedByTheWriterItselfEvenWhenItsOwnerServesThem() throws {
        // intent-handler refuses such ids on the wire; this owner does not, and timeline-service
        // publishes whatever its owner has, so the only guard left is snapshot-writer's own path
        // check right before the file system.
        let bus = try BusFixture()
        let hostile = ["..", "../escaped", "a/b", "dot/../../escaped", String(repeating: "x", count: 300)]
        let states = (hostile + ["safe"]).enumerated().map { index, user in
            StateRecord(user: user, app: .tensionCheck, version: UInt64(index + 1), state: .initial(for: .tensionCheck))
        }
        let owner = try FakeStateOwner(
            snapshotEndpoint: bus.endpoint(.stateSnapshot), eventsEndpoint: bus.endpoint(.stateEvents),
            snapshot: SnapshotBody(epoch: PublisherEpoch.random(), sequence: UInt64(states.count), states: states))
        defer { owner.stop() }
        try bus.start(.timelineService)
        let writer = try bus.start(.snapshotWriter)

        _ = try bus.tensionSnapshot(user: "safe", version: UInt64(states.count))
        #expect(try FileManager.default.contentsOfDirectory(atPath: bus.snapshotRoot.path).filter { !$0.hasPrefix(".") } == ["safe"])
        let parent = bus.snapshotRoot.deletingLastPathComponent()
        #expect(!FileManager.default.fileExists(atPath: parent.appendingPathComponent("escaped").path))
        #expect(!FileManager.default.fileExists(atPath: parent.appendingPathComponent("TensionCheckWidget.json").path))
        #expect(!FileManager.default.fileExists(atPath: parent.deletingLastPathComponent().appendingPathComponent("escaped").path))
        try bus.waitUntil("every hostile id is logged as refused", timeout: 5) {
            writer.log.components(separatedBy: "snapshot refused").count - 1 >= hostile.count
        }
    }

    // MARK: - Helpers

    /// Waits for the snapshot file of `kind` at `version` and compares it field by field with
    /// timeline-service's timeline of the same state version.
    func expectSnapshotMatchesTimelineService(
        _ bus: BusFixture, _ kind: WidgetKind, user: String, version: UInt64, metricsVersion: UInt64? = nil
    ) throws {
        let snapshot = try bus.snapshot(kind, user: user, as: JSONValue.self, version: version, metricsVersion: metricsVersion)
        let timeline = try bus.timeline(
            kind, user: user, as: JSONValue.self, atLeastVersion: version, metricsVersion: metricsVersion ?? 0)
        #expect(snapshot.schemaVersion == WidgetSnapshot.schemaVersion)
        #expect(snapshot.kind == timeline.kind)
        #expect(snapshot.user == timeline.user)
        #expect(snapshot.stateVersion == timeline.stateVersion)
        #expect(snapshot.metricsVersion == timeline.metricsVersion)
        #expect(snapshot.validUntil == Timeline(entries: snapshot.timeline.entries, policy: snapshot.timeline.policy).reloadDate)
        expectSameTimeline(snapshot, .init(entries: timeline.entries, policy: timeline.policy))
    }

    /// The phases the Tension Check snapshot at `version` shows, once checked against timeline-service.
    func phasesMatchingTimelineService(_ bus: BusFixture, user: String, version: UInt64) throws -> [String] {
        try expectSnapshotMatchesTimelineService(bus, .tensionCheck, user: user, version: version)
        return try bus.tensionSnapshot(user: user, version: version).timeline.entries.map(\.content.name)
    }

    /// The snapshot's timeline is `expected`, built at another instant: every date in it, inside
    /// entries too, is either the same instant (it comes from the state, like `resetAt`) or moved
    /// by exactly the shift between the two builds (it comes from their `now`).
    func expectSameTimeline(_ snapshot: DecodedSnapshot<JSONValue>, _ expected: DecodedSnapshot<JSONValue>.Timeline) {
        let built = snapshot.timeline
        #expect(built.entries.first?.date == snapshot.generatedAt, "the timeline is built at generatedAt")
        let shift = (expected.entries.first?.date).map { $0.timeIntervalSince(snapshot.generatedAt) } ?? 0
        func same(_ built: Date, _ expected: Date) -> Bool {
            let offset = expected.timeIntervalSince(built)
            return abs(offset) < 0.001 || abs(offset - shift) < 0.001
        }
        func same(_ built: JSONValue, _ expected: JSONValue) -> Bool {
            switch (built, expected) {
            case (.string(let a), .string(let b)):
                guard let a = WireDate.parse(a), let b = WireDate.parse(b) else { return built == expected }
                return same(a, b)
            case (.array(let a), .array(let b)):
                return a.count == b.count && zip(a, b).allSatisfy(same)
            case (.object(let a), .object(let b)):
                return Set(a.keys) == Set(b.keys) && a.allSatisfy { same($0.value, b[$0.key]!) }
            default:
                return built == expected
            }
        }
        #expect(built.entries.count == expected.entries.count)
        for (entry, expectedEntry) in zip(built.entries, expected.entries) {
            #expect(same(entry.date, expectedEntry.date) && same(entry.content, expectedEntry.content),
                    "\(snapshot.kind.rawValue) entry \(entry) differs from \(expectedEntry)")
        }
        switch (built.policy, expected.policy) {
        case (.after(let date), .after(let expectedDate)):
            #expect(same(date, expectedDate), "policy dates \(date) and \(expectedDate)")
        case (let policy, let expectedPolicy):
            #expect(policy == expectedPolicy)
        }
    }

    func permissions(_ url: URL) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int)
    }

    func inode(_ url: URL) -> UInt64? {
        let number = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.systemFileNumber]
        return number as? UInt64 ?? (number as? NSNumber)?.uint64Value
    }
}

/// Parses the given snapshot files over and over on a thread of its own, as a widget might read
/// them at any instant. A file that existed once must never be missing again.
final class SnapshotReader: Sendable {
    struct Reads: Sendable {
        var parsed = 0
        var failures: [String] = []
    }

    private let reads = Mutex(Reads())
    private let stopSignal = StopSignal()
    private let finished = DispatchSemaphore(value: 0)

    init(files: [String]) {
        let thread = Thread { [self] in
            let codec = WireCodec()
            var seen = Set<String>()
            while !stopSignal.isRequested {
                for file in files {
                    guard let data = FileManager.default.contents(atPath: file) else {
                        if seen.contains(file) { reads.withLock { $0.failures.append("\(file) vanished") } }
                        continue
                    }
                    seen.insert(file)
                    let parsed = (try? codec.decode(DecodedSnapshot<TensionCheckPhase>.self, from: data)) != nil
                    reads.withLock { reads in
                        if parsed { reads.parsed += 1 } else { reads.failures.append(String(decoding: data.prefix(200), as: UTF8.self)) }
                    }
                }
            }
            finished.signal()
        }
        thread.start()
    }

    func stop() -> Reads {
        stopSignal.request()
        finished.wait()
        return reads.withLock { $0 }
    }
}

/// A few thousand Tension Check intents over a few users, sent as fast as intent-handler takes
/// them (many in flight on one DEALER) from a thread of its own.
final class IntentBurst: Sendable {
    private let outcome = Mutex<Result<[String: StateRecord], any Error>?>(nil)

    init(endpoint: String, users: [String], count: Int) throws {
        let context = try ZMQContext()
        let thread = Thread { [self] in
            let result = Result<[String: StateRecord], any Error> {
                let codec = WireCodec()
                let client = try PipelinedClient(context: context, endpoint: endpoint, security: nil)
                var latest: [String: StateRecord] = [:]
                try client.exchange(count: count, window: 64) { index in
                    let envelope = Envelope(
                        type: MessageType.recordTension.rawValue, user: users[index % users.count],
                        body: RecordTensionBody(level: [3, 7, 0, 10, 5][(index / users.count) % 5]))
                    return try codec.encode(envelope)
                } reply: { payload in
                    let record = try codec.decode(Envelope<StateRecord>.self, from: payload).body
                    if record.version > latest[record.user]?.version ?? 0 { latest[record.user] = record }
                }
                return latest
            }
            context.terminate()
            outcome.withLock { $0 = result }
        }
        thread.start()
    }

    var isFinished: Bool { outcome.withLock { $0 != nil } }

    /// The last state committed for each user.
    func finalStates() throws -> [String: StateRecord] {
        try outcome.withLock { $0 }!.get()
    }
}

/// A state owner that answers every snapshot request with one fixed snapshot and publishes
/// heartbeats at its sequence — whatever ids the snapshot holds.
final class FakeStateOwner: Sendable {
    private let stopSignal = StopSignal()
    private let finished = DispatchSemaphore(value: 0)

    init(snapshotEndpoint: String, eventsEndpoint: String, snapshot: SnapshotBody) throws {
        let bound = DispatchSemaphore(value: 0)
        let failure = Mutex<(any Error)?>(nil)
        let thread = Thread { [self] in
            do {
                let codec = WireCodec()
                let context = try ZMQContext()
                defer { context.terminate() }
                let requests = try ZMQSocket(context: context, type: .router)
                defer { requests.close() }
                let events = try ZMQSocket(context: context, type: .pub)
                defer { events.close() }
                try requests.setLinger(milliseconds: 0)
                try events.setLinger(milliseconds: 0)
                try requests.bind(snapshotEndpoint)
                try events.bind(eventsEndpoint)
                bound.signal()
                while !stopSignal.isRequested {
                    let heartbeat = Envelope(
                        type: MessageType.heartbeat.rawValue, body: HeartbeatBody(publisher: "fake-owner", epoch: snapshot.epoch, sequence: snapshot.sequence))
                    try events.send([Data(Topic.heartbeat.utf8), try codec.encode(heartbeat)])
                    guard try ZMQPoller.isReadable(requests, waitingMilliseconds: 100),
                        let frames = try requests.receiveMessage()
                    else { continue }
                    let message = RoutedMessage(frames: frames)
                    let id = message.payload.flatMap { try? codec.decode(EnvelopeHeader.self, from: $0).id }
                    try requests.send(message.reply(try codec.reply(to: id, user: nil, type: .snapshotReply, body: snapshot)))
                }
            } catch {
                failure.withLock { $0 = error }
                bound.signal()
            }
            finished.signal()
        }
        thread.start()
        bound.wait()
        if let error = failure.withLock({ $0 }) { throw error }
    }

    func stop() {
        stopSignal.request()
        finished.wait()
    }
}
