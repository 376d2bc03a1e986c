import Foundation
import Testing
import WidgetBusProtocol
import WidgetDomain
import ZeroMQ

/// Driving metrics-ingest: `widgetctl ingest` to push, `widgetctl metrics-status` and the
/// snapshot socket to see what it made of the samples.
extension BusFixture {
    /// `widgetctl ingest <arguments>`, expecting the push to succeed; returns the message ids.
    @discardableResult
    func ingest(_ arguments: String...) throws -> [String] {
        let result = try widgetctl(["ingest"] + arguments)
        guard result.status == 0 else {
            Issue.record("ingest \(arguments) failed (\(result.status)): \(result.stdout) \(result.stderr)")
            throw FixtureError.commandFailed(result)
        }
        return try codec.decode(PushSummary.self, from: result.stdoutData).ids
    }

    struct PushSummary: Decodable {
        var messages: Int
        var samples: Int
        var ids: [String]
    }

    func metricsStatus() throws -> MetricsStatusBody {
        let result = try widgetctl("metrics-status")
        guard result.status == 0 else { throw FixtureError.commandFailed(result) }
        return try codec.decode(MetricsStatusBody.self, from: result.stdoutData)
    }

    /// The status once metrics-ingest has handled `count` samples in all (accepted, duplicate or refused).
    @discardableResult
    func metricsStatus(handled count: UInt64, timeout: Double = 10) throws -> MetricsStatusBody {
        var latest = MetricsStatusBody()
        try waitUntil("metrics-ingest has handled \(count) samples", timeout: timeout) {
            latest = try metricsStatus()
            return latest.accepted + latest.duplicates + latest.rejected >= count
        }
        return latest
    }

    /// metrics-ingest's snapshot, read through its snapshot socket.
    func metricsSnapshot() throws -> MetricsSnapshotBody {
        let client = try RawClient(endpoint: endpoint(.metricsSnapshot))
        let request = RawClient.envelope(type: "SnapshotRequest", user: nil, body: #"{"prefix":"metrics."}"#)
        guard let reply = try client.exchange([Data(request.utf8)]) else { throw FixtureError.timedOut("metrics snapshot") }
        return try codec.decode(Envelope<MetricsSnapshotBody>.self, from: reply[0]).body
    }

    func metricsRecord(user: String) throws -> MetricsRecord? {
        try metricsSnapshot().aggregates.first { $0.user == user }
    }

    /// The `StressMonitorWidget` timeline `widgetctl timeline` prints, once it reflects metrics
    /// version `version`; with the seconds it took to get there.
    func stressTimeline(user: String, metricsVersion version: UInt64, timeout: Double = 10) throws
        -> (timeline: DecodedTimelineBody<StressMonitorEntry>, seconds: Double)
    {
        let started = Date()
        var latest: DecodedTimelineBody<StressMonitorEntry>?
        try waitUntil("StressMonitorWidget of \(user) reaches metrics version \(version)", timeout: timeout) {
            let result = try widgetctl("timeline", WidgetKind.stressMonitor.rawValue, "--user", user)
            guard result.status == 0 else { return false }
            latest = try codec.decode(DecodedTimelineBody<StressMonitorEntry>.self, from: result.stdoutData)
            return (latest!.metricsVersion ?? 0) >= version
        }
        return (latest!, Date().timeIntervalSince(started))
    }

    /// Writes `lines` to a file in the fixture's directory and returns its path.
    func writeSamplesFile(_ lines: [String]) throws -> String {
        let url = root.appendingPathComponent("samples-\(UUID().uuidString.prefix(6)).jsonl")
        try Data(lines.joined(separator: "\n").utf8).write(to: url)
        return url.path
    }
}

/// A PUSH socket of a test's own, to send metrics-ingest frames widgetctl would never send.
final class RawPusher {
    private let context: ZMQContext
    private let socket: ZMQSocket

    init(endpoint: String) throws {
        context = try ZMQContext()
        socket = try ZMQSocket(context: context, type: .push)
        try socket.setLinger(milliseconds: 2_000)
        try socket.connect(endpoint)
    }

    deinit {
        socket.close()
        context.terminate()
    }

    func send(_ frame: Data) throws {
        try socket.send(frame)
    }

    func send(_ frames: [Data]) throws {
        try socket.send(frames)
    }
}

/// A sample line as a gateway would write it.
func sampleLine(_ kind: String, user: String, takenAt: Date, source: String = "gateway", _ fields: String) -> String {
    #"{"kind":"\#(kind)","user":"\#(user)","takenAt":"\#(WireDate.format(takenAt))","source":"\#(source)",\#(fields)}"#
}
