import Foundation
import GRDB
import Logging
import ServiceSupport
import WidgetBusProtocol
import WidgetDomain

/// Turns pushed payloads into committed aggregate changes and the events that announce them.
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
    /// The epoch of the publisher that sends this ingestor's events (``PublisherEpoch``).
    let epoch: String
    private var calendars: [String: LocalCalendar] = [:]

    /// The committed aggregates by user.
    private(set) var records: [String: MetricsRecord]
    private(set) var counters: MetricsCounters
    /// The last metrics sequence committed.
    private(set) var sequence: UInt64

    init(
        store: MetricsStore, codec: WireCodec, epoch: String, logger: Logger, clock: @escaping @Sendable () -> Date = Date.init
    ) throws {
        self.store = store
        self.codec = codec
        self.epoch = epoch
        self.logger = logger
        self.clock = clock
        (records, counters, sequence) = try store.load()
    }

    /// A pushed message after validation: its id (nil when it was refused as a whole), the
    /// samples to store, and the counts of what was refused before the store.
    private struct CheckedMessage {
        var id: String?
        var candidates: [(key: MetricsStore.SampleKey, metric: AcceptedMetric)] = []
        var counts = MetricsCounters()
    }

    /// What one message changed: the aggregates, its counts and its events.
    private struct StoredMessage {
        var changed: [String: MetricsRecord] = [:]
        var counts: MetricsCounters
        var events: [Event] = []
    }

    /// Validates every sample of each pushed message (one frame each: the envelope), then
    /// commits all the messages drained together in one transaction (group commit), each in a
    /// savepoint of its own, with the new aggregates and the counters, and returns the events to
    /// publish after that commit, in order. Nothing here throws: a refused message or sample is
    /// counted; a message that fails in the store is counted as `internal` and its samples are
    /// lost, the others' kept; a failed commit loses the whole burst and is logged.
    ///
    /// - Parameter timeZone: the user's zone for local hours (UTC for a user with no profile).
    func ingest(_ messages: [[Data]], timeZone: (String) -> TimeZone) -> [Event] {
        let now = clock()
        let checked = messages.map { check($0, now: now) }
        var burst: [String: MetricsRecord] = [:]  // aggregates this burst changed so far
        var counts = MetricsCounters()
        do {
            let events = try store.database.write { db in
                var events: [Event] = []
                for message in checked {
                    guard let id = message.id else {
                        counts.add(message.counts)
                        continue
                    }
                    do {
                        let stored = try db.inCachedSavepoint {
                            try self.store(message, id: id, db: db, over: burst, timeZone: timeZone, now: now)
                        }
                        burst.merge(stored.changed) { $1 }
                        counts.add(stored.counts)
                        events += stored.events
                    } catch {
                        logger.error("message not stored; its samples are lost", metadata: ["message": "\(id)", "error": "\(error)"])
                        counts.count(.internalError)
                    }
                }
                try store.add(db, counts: counts)
                return events
            }
            records.merge(burst) { $1 }
            counters.add(counts)
            sequence = events.last?.sequence ?? sequence
            return events
        } catch {
            logger.error("commit failed; the burst's samples are lost", metadata: ["messages": "\(messages.count)", "error": "\(error)"])
            var failure = MetricsCounters()
            for _ in messages { failure.count(.internalError) }
            commit(counts: failure)
            return []
        }
    }

    /// Decodes a pushed message and validates its samples one by one.
    private func check(_ frames: [Data], now: Date) -> CheckedMessage {
        let push: MetricsPush
        do throws(ProtocolError) {
            guard frames.count == 1 else {
                throw ProtocolError(.badFrames, "expected exactly one frame, got \(frames.count)")
            }
            push = try MetricsPush.decode(frames[0], codec: codec)
        } catch {
            logger.warning("pushed message refused", metadata: ["code": "\(error.code)", "reason": "\(error.message)"])
            var refused = CheckedMessage(id: nil)
            refused.counts.count(error.code)
            return refused
        }
        var message = CheckedMessage(id: push.id)
        for decoded in push.samples {
            do {
                let sample = try decoded.get()
                let metric = try MetricValidation.validate(sample, now: now)
                message.candidates.append((MetricsStore.SampleKey(user: sample.user, kind: sample.kind, takenAt: sample.takenAt), metric))
            } catch {
                message.counts.count(error.reason)
                logger.debug("sample refused", metadata: ["message": "\(push.id)", "reason": "\(error)"])
            }
        }
        return message
    }

    /// Stores one message's new samples on top of `burst` (the aggregates changed earlier in the
    /// same transaction) and the committed aggregates: one new version and one event per user
    /// whose aggregate changed.
    private func store(
        _ message: CheckedMessage, id: String, db: Database, over burst: [String: MetricsRecord], timeZone: (String) -> TimeZone,
        now: Date
    ) throws -> StoredMessage {
        var stored = StoredMessage(counts: message.counts)
        var order: [String] = []
        for candidate in message.candidates {
            guard try store.insertIfNew(db, candidate.key) else {
                stored.counts.countDuplicate()
                continue
            }
            stored.counts.countAccepted()
            let user = candidate.key.user
            let current = stored.changed[user]?.aggregate ?? burst[user]?.aggregate ?? records[user]?.aggregate ?? .empty
            let next = current.applying(candidate.metric, calendar: calendar(for: timeZone(user)))
            if next != current {
                if stored.changed[user] == nil { order.append(user) }
                stored.changed[user] = MetricsRecord(user: user, version: 0, aggregate: next)
            }
        }
        for user in order {
            let record = MetricsRecord(user: user, version: try store.nextSequence(db), aggregate: stored.changed[user]!.aggregate)
            try store.save(db, record)
            stored.changed[user] = record
            let envelope = Envelope(
                type: MessageType.metricsChanged.rawValue, user: user, sentAt: now,
                body: MetricsChangedBody(epoch: epoch, sequence: record.version, causedBy: id, user: user, aggregate: record.aggregate))
            stored.events.append(Event(topic: Topic.metrics(user: user), sequence: record.version, payload: try codec.encode(envelope)))
        }
        return stored
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
