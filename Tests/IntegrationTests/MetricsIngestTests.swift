import Foundation
import Testing
import WidgetBusProtocol
import WidgetDomain
import ZeroMQ

/// metrics-ingest as a real process: samples pushed with `widgetctl ingest` become per-user
/// aggregates in the user's zone, survive restarts and crashes, bad samples are counted per
/// reason without costing their batch the good ones, and every change is a sequenced event.
@Suite(.serialized, .blockingThreads)
struct MetricsIngestTests {
    /// A whole minute a little in the past, so every sample's hour is settled.
    static func minute(_ minutesAgo: Double) -> Date {
        Date(timeIntervalSince1970: (Date().timeIntervalSince1970 / 60).rounded(.down) * 60 - minutesAgo * 60)
    }

    /// intent-handler (the users' zones; without it samples wait 3 s for them), metrics-ingest,
    /// and a subscriber to metrics events that has seen a heartbeat.
    static func metricsIngestWithSubscriber() throws -> (BusFixture, EventSubscriber) {
        let bus = try BusFixture()
        try bus.start(.intentHandler)
        try bus.start(.metricsIngest)
        let subscriber = try EventSubscriber(endpoint: bus.endpoint(.metricsEvents), topics: [Topic.metricsPrefix, Topic.heartbeat])
        try subscriber.waitForHeartbeat()
        return (bus, subscriber)
    }

    @Test func samplesBecomeTheUsersAggregateInTheirZone() throws {
        let bus = try BusFixture()
        try bus.start(.intentHandler)
        // +5:45; intent-handler's zone list (Foundation's on Linux) knows Kolkata only as Asia/Calcutta.
        #expect(try bus.sendRaw("SetTimeZone", user: "maya", body: #"{"timeZone":"Asia/Kathmandu"}"#).status == 0)
        try bus.start(.metricsIngest)

        let first = Self.minute(70), second = Self.minute(65), third = Self.minute(5)
        try bus.ingest("hrv", "--user", "maya", "--ms", "50", "--taken-at", WireDate.format(first), "--source", "ring")
        try bus.ingest("hrv", "--user", "maya", "--ms", "60", "--taken-at", WireDate.format(second))
        try bus.ingest("stress", "--user", "maya", "--score", "38.4", "--taken-at", WireDate.format(third))
        try bus.ingest("rr", "--user", "maya", "--intervals", "800,810,790,805,795,800,820,780,800,810", "--taken-at", WireDate.format(third))
        let status = try bus.metricsStatus(handled: 4)
        #expect(status.accepted == 4 && status.rejected == 0 && status.duplicates == 0)
        #expect(status.users == 1)

        let record = try #require(try bus.metricsRecord(user: "maya"))
        #expect(record.version == status.sequence)
        #expect(record.aggregate.latestStress == StressMeasurement(stressLevel: 38, measuredAt: third))
        let kathmandu = LocalCalendar(timeZone: TimeZone(identifier: "Asia/Kathmandu")!)
        let expectedHours = [first, second, third].map(kathmandu.startOfHour(for:)).reduce(into: [Date]()) { hours, hour in
            if hours.last != hour { hours.append(hour) }
        }
        #expect(record.aggregate.hourlyRMSSD.map(\.hourStart) == expectedHours)
        #expect(record.aggregate.hourlyRMSSD.allSatisfy { Int($0.hourStart.timeIntervalSince1970) % 3_600 == 15 * 60 },
                "Kathmandu's hours start at a quarter past in UTC")
        let rmssd = (3350.0 / 9).squareRoot()
        #expect(abs((record.aggregate.hourlyRMSSD.last?.milliseconds ?? 0) - rmssd) < 1e-9)
        #expect(abs((record.aggregate.hourlySDNN.last?.milliseconds ?? 0) - (1140.0 / 9).squareRoot()) < 1e-9)
        #expect(record.aggregate.latestRR?.analysis.cleanIntervals == 10)
    }

    @Test func aBatchWithBadSamplesKeepsTheGoodOnesAndCountsTheBadPerReason() throws {
        let bus = try BusFixture()
        try bus.start(.intentHandler)  // the users' zones; without it samples wait 3 s for them
        try bus.start(.metricsIngest)
        let now = Self.minute(1)
        let lines = [
            sampleLine("hrv", user: "nina", takenAt: now, #""milliseconds":48,"measure":"rmssd""#),
            sampleLine("stress", user: "nina", takenAt: now, #""score":101"#),
            sampleLine("hrv", user: "nina", takenAt: now.addingTimeInterval(-60), #""milliseconds":0.5,"measure":"sdnn""#),
            sampleLine("hrv", user: "nina", takenAt: now.addingTimeInterval(3_600), #""milliseconds":50,"measure":"rmssd""#),
            sampleLine("stress", user: "nina", takenAt: now.addingTimeInterval(-8 * 86_400), #""score":20"#),
            sampleLine("spo2", user: "nina", takenAt: now, #""percent":97"#),
            sampleLine("hrv", user: "nina", takenAt: now, #""milliseconds":40,"measure":"pnn50""#),
            sampleLine("stress", user: "a/b", takenAt: now, #""score":20"#),
            sampleLine("stress", user: "nina", takenAt: now, source: "", #""score":20"#),
            sampleLine("rr", user: "nina", takenAt: now, #""intervals":[800,3000,810]"#),
            sampleLine("rr", user: "nina", takenAt: now, #""intervals":[]"#),
            #"{"kind":"stress","user":"nina"}"#,
            "42",
            "this line is not JSON",
            sampleLine("stress", user: "nina", takenAt: now, #""score":22"#),
            sampleLine("hrv", user: "nina", takenAt: now, #""milliseconds":48,"measure":"rmssd""#),  // same user, kind, time
        ]
        let result = try bus.widgetctl("ingest", "--file", try bus.writeSamplesFile(lines), "--batch-size", "7")
        #expect(result.status == 1, "a line that is not JSON is reported: \(result.stderr)")
        #expect(result.stderr.contains(":14 is not JSON"))

        let status = try bus.metricsStatus(handled: 15)
        #expect(status.accepted == 2)
        #expect(status.duplicates == 1)
        #expect(status.rejectedSamples == [
            "invalid_stress_score": 1, "invalid_hrv": 1, "measurement_in_future": 1, "measurement_too_old": 1,
            "unknown_kind": 1, "unknown_measure": 1, "invalid_user": 1, "invalid_source": 1,
            "too_few_clean_intervals": 1, "invalid_rr_intervals": 1, "malformed_sample": 2,
        ])
        #expect(status.rejectedMessages.isEmpty)
        let record = try #require(try bus.metricsRecord(user: "nina"))
        #expect(record.aggregate.latestStress?.stressLevel == 22)
        #expect(record.aggregate.hourlyRMSSD.map(\.milliseconds) == [48])
    }

    @Test(arguments: ["SIGTERM", "SIGKILL"])
    func aggregatesCountersAndDuplicatesSurviveARestart(signal: String) throws {
        let bus = try BusFixture()
        try bus.start(.intentHandler)  // the users' zones; without it samples wait 3 s for them
        try bus.start(.metricsIngest)
        let taken = Self.minute(3)
        try bus.ingest("hrv", "--user", "omar", "--ms", "55", "--taken-at", WireDate.format(taken))
        try bus.ingest("stress", "--user", "omar", "--score", "71", "--taken-at", WireDate.format(taken))
        try bus.ingest("stress", "--user", "omar", "--score", "500")
        let before = try bus.metricsStatus(handled: 3)
        let record = try #require(try bus.metricsRecord(user: "omar"))

        if signal == "SIGKILL" {
            bus.kill9(.metricsIngest)
        } else {
            #expect(bus.stop(.metricsIngest) == 0, "SIGTERM must end metrics-ingest with status 0")
        }
        try bus.start(.metricsIngest)

        #expect(try bus.metricsStatus() == before)
        #expect(try bus.metricsRecord(user: "omar") == record)
        // The same sample again is a duplicate after the restart; a new one continues the sequence.
        try bus.ingest("hrv", "--user", "omar", "--ms", "99", "--taken-at", WireDate.format(taken))
        try bus.ingest("hrv", "--user", "omar", "--ms", "45", "--taken-at", WireDate.format(taken.addingTimeInterval(1)))
        let after = try bus.metricsStatus(handled: 5)
        #expect(after.duplicates == 1 && after.accepted == 3)
        #expect(after.sequence == before.sequence + 1)
        #expect(try bus.metricsRecord(user: "omar")?.aggregate.hourlyRMSSD.last?.milliseconds == 50)
    }

    @Test func everyChangeIsASequencedEventNamingItsMessage() throws {
        let (bus, subscriber) = try Self.metricsIngestWithSubscriber()

        let first = try bus.ingest("stress", "--user", "pia", "--score", "30")
        let second = try bus.ingest("hrv", "--user", "ravi", "--ms", "42")
        let events = try subscriber.receive(MetricsChangedBody.self, type: .metricsChanged, count: 2)
        #expect(events.map(\.body.sequence) == [1, 2])
        #expect(events.map(\.body.causedBy) == first + second)
        #expect(events.map(\.body.user) == ["pia", "ravi"])
        #expect(events[0].topic == "metrics.pia")
        #expect(events[0].body.aggregate.latestStress?.stressLevel == 30)

        // A heartbeat carries the last sequence, so a subscriber notices a lost last event.
        let beat = try subscriber.receive(HeartbeatBody.self, type: .heartbeat, count: 1)[0].body
        #expect(beat.publisher == "metrics-ingest" && beat.sequence == 2)
    }

    @Test func aBurstOfPushedMessagesIsCommittedTogetherYetMessageByMessageWithOneEventPerChangedUser() throws {
        let (bus, subscriber) = try Self.metricsIngestWithSubscriber()
        let push = try RawPusher(endpoint: bus.endpoint(.metrics))

        // 40 messages pushed back to back queue up together: 4 users, a new stress score each,
        // one sample repeated by a later message, and one message that is not JSON.
        let start = Self.minute(10)
        func sample(_ index: Int) -> String {
            sampleLine("stress", user: "burst-\(index % 4)", takenAt: start.addingTimeInterval(Double(index)), #""score":\#(10 + index)"#)
        }
        for index in 0..<40 {
            let body = index == 20 ? sample(0) : sample(index)
            try push.send(Data((index == 25 ? "not json" : RawClient.envelope(type: "MetricSample", user: nil, id: "burst-\(index)", body: body)).utf8))
        }
        let status = try bus.metricsStatus(handled: 39)
        #expect(status.accepted == 38 && status.duplicates == 1)
        #expect(status.rejectedMessages == ["bad_json": 1])

        // The messages drained together make one event per user they changed, so there are
        // between 4 (one burst) and 38 (one message at a time) events, as the queue had them.
        let events = try subscriber.receive(MetricsChangedBody.self, type: .metricsChanged, count: Int(status.sequence))
        #expect((4...38).contains(events.count))
        #expect(events.map(\.body.sequence) == Array(1...UInt64(events.count)), "one version per event, gap-free")
        let accepted = (0..<40).filter { $0 != 20 && $0 != 25 }
        for user in 0..<4 {
            let last = try #require(accepted.filter { $0 % 4 == user }.last)
            let record = try #require(try bus.metricsRecord(user: "burst-\(user)"))
            let event = try #require(events.last { $0.body.user == "burst-\(user)" }?.body)
            #expect(record.aggregate.latestStress?.stressLevel == 10 + last, "each user's aggregate ends at their last score")
            #expect(record.version == event.sequence && event.aggregate == record.aggregate)
            #expect(event.causedBy == "burst-\(last)", "the event names the last message that changed the user")
        }
        let named = events.map { Int($0.body.causedBy.dropFirst("burst-".count))! }
        #expect(named.allSatisfy(accepted.contains), "every event names a message that changed its user")
    }

    @Test func badMessagesAndRequestsAreCountedOrAnsweredAndChangeNothing() throws {
        let bus = try BusFixture()
        try bus.start(.intentHandler)  // the users' zones; without it samples wait 3 s for them
        try bus.start(.metricsIngest)
        let push = try RawPusher(endpoint: bus.endpoint(.metrics))
        try push.send(Data("not json".utf8))
        try push.send([Data("two".utf8), Data("frames".utf8)])
        try push.send(Data(RawClient.envelope(type: "RecordTensionIntent", body: #"{"level":3}"#).utf8))
        try push.send(Data(repeating: 0x20, count: ProtocolLimits.maxMetricsPayloadBytes + 1))
        try bus.waitUntil("4 refused messages are counted", timeout: 10) {
            try bus.metricsStatus().rejectedMessages.values.reduce(0, +) == 4
        }
        let status = try bus.metricsStatus()
        #expect(status.rejectedMessages == ["bad_json": 1, "bad_frames": 1, "unknown_type": 1, "payload_too_large": 1])
        #expect(status.accepted == 0 && status.sequence == 0)

        let client = try RawClient(endpoint: bus.endpoint(.metricsSnapshot))
        #expect(try client.errorReply(toJSON: RawClient.envelope(type: "TimelineRequest", body: #"{"kind":"StressMonitorWidget"}"#))?.body.code == .unknownType)
        #expect(try client.errorReply(toJSON: "{")?.body.code == .badJSON)
        #expect(try bus.widgetctl("ping", "metrics-ingest").status == 0)
    }
}

/// A SUB socket for a test, with the topic frame kept beside each decoded event.
final class EventSubscriber {
    private let context: ZMQContext
    private let socket: ZMQSocket
    private let codec = WireCodec()

    init(endpoint: String, topics: [String]) throws {
        context = try ZMQContext()
        socket = try ZMQSocket(context: context, type: .sub)
        try socket.setLinger(milliseconds: 0)
        for topic in topics { try socket.subscribe(topic) }
        try socket.connect(endpoint)
    }

    deinit {
        socket.close()
        context.terminate()
    }

    /// Waits for the first heartbeat: the subscription is live from then on.
    func waitForHeartbeat(timeout: Double = 5) throws {
        _ = try receive(HeartbeatBody.self, type: .heartbeat, count: 1, timeout: timeout)
    }

    /// The next `count` events of `type`, skipping others.
    func receive<Body: Decodable & Sendable>(_ body: Body.Type, type: MessageType, count: Int, timeout: Double = 10) throws
        -> [(topic: String, body: Body)]
    {
        var events: [(topic: String, body: Body)] = []
        let deadline = Date().addingTimeInterval(timeout)
        while events.count < count, Date() < deadline {
            guard try ZMQPoller.isReadable(socket, waitingMilliseconds: 100), let frames = try socket.receiveMessage(), frames.count == 2,
                (try codec.decode(EnvelopeHeader.self, from: frames[1])).type == type.rawValue
            else { continue }
            events.append((String(decoding: frames[0], as: UTF8.self), try codec.decode(Envelope<Body>.self, from: frames[1]).body))
        }
        guard events.count == count else { throw FixtureError.timedOut("\(count) \(type.rawValue) events") }
        return events
    }
}

/// The readers: a measurement reaches the Stress Monitor widget's timeline and snapshot file at
/// once, merged with the app's state, and a late reader catches up from the snapshot.
@Suite(.serialized, .blockingThreads)
struct MetricsIntoTheStressMonitorWidgetTests {
    @Test func pushedSamplesReachTheTimelineWithinASecond() throws {
        let bus = try BusFixture()
        try bus.start(.intentHandler)
        try bus.start(.metricsIngest)
        try bus.start(.timelineService)
        let app = try bus.send(
            .recordStressMeasurement, user: "quinn",
            body: #"{"stressLevel":30,"hrvMilliseconds":70,"measuredAt":"\#(WireDate.format(MetricsIngestTests.minute(30)))"}"#)
        let timelines = try EventSubscriber(endpoint: bus.endpoint(.timelineEvents), topics: ["timeline.StressMonitorWidget.quinn", Topic.heartbeat])
        try timelines.waitForHeartbeat()

        let taken = MetricsIngestTests.minute(2)
        let pushed = Date()
        let ids = try bus.ingest("stress", "--user", "quinn", "--score", "72", "--taken-at", WireDate.format(taken), "--source", "ring")
        let event = try timelines.receive(TimelineChangedProbe.self, type: .timelineChanged, count: 1)[0].body
        #expect(Date().timeIntervalSince(pushed) < 1, "the measurement must be published as a timeline at once")
        #expect(event.causedBy == ids[0])
        #expect(event.timeline.metricsVersion == 1 && event.timeline.stateVersion == app.version)

        let (timeline, seconds) = try bus.stressTimeline(user: "quinn", metricsVersion: 1)
        #expect(seconds < 1)
        let entry = try #require(timeline.entries.first?.content)
        #expect(entry.stressLevel == 72 && entry.category == .high, "the newer metrics score wins over the app's")
        #expect(entry.measuredAt == taken)
        #expect(entry.hrvHistory == [70], "without metrics HRV the app's history stays")

        try bus.ingest("hrv", "--user", "quinn", "--ms", "50", "--taken-at", WireDate.format(taken))
        try bus.ingest("hrv", "--user", "quinn", "--ms", "60", "--taken-at", WireDate.format(taken.addingTimeInterval(1)))
        let merged = try bus.stressTimeline(user: "quinn", metricsVersion: 3).timeline.entries[0].content
        #expect(merged.hrvHistory == [55], "hourly metrics replace the app-recorded history")
        #expect(merged.hrvAverage == 55 && merged.hrvMax == 55)
    }

    @Test func aLateTimelineServiceAndSnapshotWriterCatchUpFromTheSnapshots() throws {
        let bus = try BusFixture()
        try bus.start(.intentHandler)
        try bus.start(.metricsIngest)
        let taken = MetricsIngestTests.minute(4)
        try bus.ingest("stress", "--user", "rosa", "--score", "12", "--taken-at", WireDate.format(taken))
        try bus.ingest("rr", "--user", "rosa", "--intervals", "800,810,790,805,795,800,820,780,800,810", "--taken-at", WireDate.format(taken))
        try bus.metricsStatus(handled: 2)

        try bus.start(.timelineService)
        try bus.start(.snapshotWriter)
        let entry = try bus.stressTimeline(user: "rosa", metricsVersion: 2).timeline.entries[0].content
        #expect(entry.stressLevel == 12 && entry.category == .relaxed)
        #expect(entry.hrvHistory.count == 1 && abs(entry.hrvHistory[0] - (3350.0 / 9).squareRoot()) < 1e-9)

        // rosa has no app state: her widget's file is written for her metrics alone.
        var file: DecodedSnapshot<StressMonitorEntry>?
        try bus.waitUntil("rosa's StressMonitorWidget.json reflects metrics version 2", timeout: 10) {
            file = try bus.snapshot(.stressMonitor, user: "rosa", as: StressMonitorEntry.self)
            return file?.metricsVersion == 2
        }
        #expect(file?.stateVersion == 0 && file?.timeline.entries.first?.content.stressLevel == 12)

        // metrics-ingest crashes and comes back: the readers follow its continued sequence.
        bus.kill9(.metricsIngest)
        try bus.start(.metricsIngest)
        try bus.ingest("stress", "--user", "rosa", "--score", "48", "--taken-at", WireDate.format(taken.addingTimeInterval(60)))
        #expect(try bus.stressTimeline(user: "rosa", metricsVersion: 3).timeline.entries[0].content.stressLevel == 48)
        try bus.waitUntil("rosa's file reflects metrics version 3", timeout: 10) {
            try bus.snapshot(.stressMonitor, user: "rosa", as: StressMonitorEntry.self)?.metricsVersion == 3
        }
    }
}

/// The parts of a `TimelineChanged` body these tests read.
struct TimelineChangedProbe: Decodable {
    struct Timeline: Decodable {
        var stateVersion: UInt64
        var metricsVersion: UInt64?
    }

    var causedBy: String?
    var timeline: Timeline
}
