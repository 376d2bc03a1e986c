import Foundation
import GRDB
import Logging
import ServiceSupport
import WidgetBusProtocol
import WidgetDomain

/// Turns one pushed payload into committed aggregate changes and the events that announce them.
/// The rules are WidgetDomain's (validation, RR analysis, aggregation); this type decodes,
/// deduplicates, persists and encodes. It keeps the store's content in memory too — it is the
/// only writer — so the snapshot endpoint answers from the same thread without a read.
final class MetricsIngestor {
    struct Event {
        var topic: String
        var sequence: UInt64
        var payload: Data
    }

    private let store: MetricsStore
    private let codec: WireCodec
    private let logger: Logger
    private let clock: @Sendable () -> Date
    private var calendars: [String: LocalCalendar] = [:]

    /// The committed aggregates by user.
    private(set) var records: [String: MetricsRecord]
    private(set) var counters: MetricsCounters
    /// The last metrics sequence committed.
    private(set) var sequence: UInt64

    init(store: MetricsStore, codec: WireCodec, logger: Logger, clock: @escaping @Sendable () -> Date = Date.init) throws {
        self.store = store
        self.codec = codec
        self.logger = logger
        self.clock = clock
        (records, counters, sequence) = try store.load()
    }

    /// Validates every sample of a pushed message (one frame: the envelope), commits the accepted ones with the new aggregates and
    /// the counters in one transaction, and returns the events to publish after that commit.
    /// Nothing here throws: a refused message or sample is counted, a failed commit logged.
    ///
    /// - Parameter timeZone: the user's zone for local hours (UTC for a user with no profile).
    func ingest(_ frames: [Data], timeZone: (String) -> TimeZone) -> [Event] {
        var counts = MetricsCounters()
        let push: MetricsPush
        do throws(ProtocolError) {
            guard frames.count == 1 else {
                throw ProtocolError(.badFrames, "expected exactly one frame, got \(frames.count)")
            }
            push = try MetricsPush.decode(frames[0], codec: codec)
        } catch {
            counts.count(error.code)
            logger.warning("pushed message refused", metadata: ["code": "\(error.code)", "reason": "\(error.message)"])
            commit(counts: counts)
            return []
        }
        let now = clock()
        var candidates: [(key: MetricsStore.SampleKey, metric: AcceptedMetric)] = []
        for decoded in push.samples {
            do {
                let sample = try decoded.get()
                let metric = try MetricValidation.validate(sample, now: now)
                candidates.append((MetricsStore.SampleKey(user: sample.user, kind: sample.kind, takenAt: sample.takenAt), metric))
            } catch {
                counts.count(error.reason)
                logger.debug("sample refused", metadata: ["message": "\(push.id)", "reason": "\(error)"])
            }
        }
        do {
            let (changed, events) = try store.database.write { db in
                var changed: [String: MetricsRecord] = [:]
                var order: [String] = []
                for candidate in candidates {
                    guard try store.insertIfNew(db, candidate.key) else {
                        counts.countDuplicate()
                        continue
                    }
                    counts.countAccepted()
                    let user = candidate.key.user
                    let current = changed[user]?.aggregate ?? records[user]?.aggregate ?? .empty
                    let next = current.applying(candidate.metric, calendar: calendar(for: timeZone(user)))
                    if next != current {
                        if changed[user] == nil { order.append(user) }
                        changed[user] = MetricsRecord(user: user, version: 0, aggregate: next)
                    }
                }
                var events: [Event] = []
                for user in order {
                    let record = MetricsRecord(user: user, version: try store.nextSequence(db), aggregate: changed[user]!.aggregate)
                    try store.save(db, record)
                    changed[user] = record
                    let envelope = Envelope(
                        type: MessageType.metricsChanged.rawValue, user: user, sentAt: now,
                        body: MetricsChangedBody(sequence: record.version, causedBy: push.id, user: user, aggregate: record.aggregate))
                    events.append(Event(topic: Topic.metrics(user: user), sequence: record.version, payload: try codec.encode(envelope)))
                }
                try store.add(db, counts: counts)
                return (changed, events)
            }
            records.merge(changed) { $1 }
            counters.add(counts)
            sequence = events.last?.sequence ?? sequence
            return events
        } catch {
            logger.error("commit failed; the message's samples are lost", metadata: ["message": "\(push.id)", "error": "\(error)"])
            var failure = MetricsCounters()
            failure.count(.internalError)
            commit(counts: failure)
            return []
        }
    }

    /// The status counters as they are committed.
    var status: MetricsStatusBody {
        counters.status(sequence: sequence, users: records.count)
    }

    /// Forgets duplicate keys that can no longer match an acceptable sample.
    func prune() throws -> Int {
        try store.pruneAcceptedSamples(takenBefore: clock().addingTimeInterval(-StressMonitorLimits.maxMeasurementAge))
    }

    /// Persists counts of a message that changed nothing else.
    private func commit(counts: MetricsCounters) {
        do {
            try store.database.write { db in try store.add(db, counts: counts) }
            counters.add(counts)
        } catch {
            logger.error("counter update failed", metadata: ["error": "\(error)"])
        }
    }

    private func calendar(for timeZone: TimeZone) -> LocalCalendar {
        if let calendar = calendars[timeZone.identifier] { return calendar }
        let calendar = LocalCalendar(timeZone: timeZone)
        calendars[timeZone.identifier] = calendar
        return calendar
    }
}
