import Foundation
import GRDB
import Logging
import Metrics
import Observability
import OrderedCollections
import ServiceSupport
import Storage
import Tracing
import W3CTraceContext
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
        /// The trace of the message behind the change, continued.
        var trace: TraceContext?
    }

    private let store: MetricsStore
    private let codec: WireCodec
    private let logger: Logger
    private let clock: any WallClock
    /// The epoch of the publisher that sends this ingestor's events (``PublisherEpoch``).
    let epoch: String
    private var calendars: [String: LocalCalendar] = [:]

    /// The committed aggregates by user.
    private(set) var records: [String: MetricsRecord]
    private(set) var counters: MetricsCounters
    /// The counters' metrics.
    private var exported = MetricsCounters.exportedCounters()
    /// The last metrics sequence committed.
    private(set) var sequence: UInt64

    init(
        store: MetricsStore, codec: WireCodec, epoch: String, logger: Logger, clock: any WallClock = SystemClock()
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
        /// Its type, as its span is named; its trace.
        var type = MessageType.metricSample.rawValue
        var trace: TraceContext?
        var candidates: [(key: MetricsStore.SampleKey, metric: AcceptedMetric)] = []
        var counts = MetricsCounters()
    }

    /// What one message changed: the aggregates of the users it changed, in the order it first
    /// changed them, and its counts.
    private struct AppliedMessage {
        var changed: OrderedDictionary<String, MetricsAggregate> = [:]
        var counts: MetricsCounters
    }

    /// Validates every sample of each pushed message (one frame each: the envelope), then
    /// commits all the messages drained together in one transaction (group commit), each in a
    /// savepoint of its own, then each changed user's new aggregate, once, with one new version,
    /// and the counters; returns the events to publish after that commit: one per user whose
    /// aggregate the burst changed, naming the last message that changed it. Nothing here throws:
    /// a refused message or sample is counted; a message that fails in the store is counted as
    /// `internal` and its samples are lost, the others' kept; a failed commit loses the whole
    /// burst and is logged.
    ///
    /// - Parameter timeZone: the user's zone for local hours (UTC for a user with no profile).
    func ingest(_ messages: [[Data]], timeZone: (String) -> TimeZone) -> [Event] {
        let now = clock.now
        let checked = messages.map { check($0, now: now) }
        var burst = AppliedMessage(counts: MetricsCounters())  // what the burst changed so far
        var causes: [String: Cause] = [:]  // the last message that changed each user, and its trace continued
        do {
            let (events, saved) = try store.database.write { db in
                for message in checked {
                    guard let id = message.id else {
                        burst.counts.add(message.counts)
                        continue
                    }
                    do {
                        let (applied, trace) = try MessageSpan.run(message.type, continuing: message.trace, ofKind: .consumer) { trace in
                            (try db.inCachedSavepoint { try self.apply(message, db: db, over: burst.changed, timeZone: timeZone) }, trace)
                        }
                        for (user, aggregate) in applied.changed {
                            burst.changed[user] = aggregate
                            if let replaced = causes.updateValue(Cause(id: id, trace: trace), forKey: user)?.trace {
                                logger.debug("metrics change coalesced into a later one", metadata: .traced(replaced, ["widgetbus.user": "\(user)"]))
                            }
                        }
                        burst.counts.add(applied.counts)
                    } catch {
                        logger.error("message not stored; its samples are lost", metadata: ["widgetbus.message.id": "\(id)", "widgetbus.error": "\(error)"])
                        burst.counts.count(.internalError)
                    }
                }
                var events: [Event] = []
                var saved: [String: MetricsRecord] = [:]
                for (user, aggregate) in burst.changed {
                    let record = MetricsRecord(user: user, version: try store.nextSequence(db), aggregate: aggregate)
                    try store.save(db, record)
                    saved[user] = record
                    let cause = causes[user]!
                    var envelope = Envelope(
                        type: MessageType.metricsChanged.rawValue, user: user, sentAt: now,
                        body: MetricsChangedBody(epoch: epoch, sequence: record.version, causedBy: cause.id, user: user, aggregate: aggregate))
                    envelope.trace = cause.trace
                    events.append(
                        Event(topic: Topic.metrics(user: user), sequence: record.version, payload: try codec.encode(envelope), trace: cause.trace))
                }
                try store.add(db, counts: burst.counts)
                return (events, saved)
            }
            records.merge(saved) { $1 }
            committed(burst.counts)
            sequence = events.last?.sequence ?? sequence
            return events
        } catch {
            logger.error("commit failed; the burst's samples are lost", metadata: ["widgetbus.messages": "\(messages.count)", "widgetbus.error": "\(error)"])
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
            logger.warning("pushed message refused", metadata: ["widgetbus.code": "\(error.code)", "widgetbus.reason": "\(error.message)"])
            var refused = CheckedMessage(id: nil)
            refused.counts.count(error.code)
            return refused
        }
        var message = CheckedMessage(id: push.id, type: push.type.rawValue, trace: push.trace)
        for decoded in push.samples {
            do {
                let sample = try decoded.get()
                let metric = try MetricValidation.validate(sample, now: now)
                message.candidates.append((MetricsStore.SampleKey(user: sample.user, kind: sample.kind, takenAt: sample.takenAt), metric))
            } catch {
                message.counts.count(error.reason)
                logger.debug("sample refused", metadata: ["widgetbus.message.id": "\(push.id)", "widgetbus.reason": "\(error)"])
            }
        }
        return message
    }

    /// Records one message's new samples (their keys, to count later duplicates) and applies
    /// them on top of `burst` (the aggregates changed earlier in the same transaction) and the
    /// committed aggregates.
    private func apply(
        _ message: CheckedMessage, db: Database, over burst: OrderedDictionary<String, MetricsAggregate>, timeZone: (String) -> TimeZone
    ) throws -> AppliedMessage {
        var applied = AppliedMessage(counts: message.counts)
        for candidate in message.candidates {
            guard try store.insertIfNew(db, candidate.key) else {
                applied.counts.countDuplicate()
                continue
            }
            applied.counts.countAccepted()
            let user = candidate.key.user
            let current = applied.changed[user] ?? burst[user] ?? records[user]?.aggregate ?? .empty
            let next = current.applying(candidate.metric, calendar: calendar(for: timeZone(user)))
            if next != current { applied.changed[user] = next }
        }
        return applied
    }

    /// The status counters as they are committed.
    var status: MetricsStatusBody {
        counters.status(sequence: sequence, users: records.count)
    }

    /// Forgets duplicate keys that can no longer match an acceptable sample.
    func prune() throws -> Int {
        try store.pruneAcceptedSamples(takenBefore: clock.now.addingTimeInterval(-StressMonitorLimits.maxMeasurementAge))
    }

    /// Persists counts of a message that changed nothing else.
    private func commit(counts: MetricsCounters) {
        do {
            try store.database.write { db in try store.add(db, counts: counts) }
            committed(counts)
        } catch {
            logger.error("counter update failed", metadata: ["widgetbus.error": "\(error)"])
        }
    }

    /// Adds committed counts to the status and to the process's metrics: one tally, two views.
    private func committed(_ counts: MetricsCounters) {
        counters.add(counts)
        counts.export(to: &exported)
    }

    private func calendar(for timeZone: TimeZone) -> LocalCalendar {
        if let calendar = calendars[timeZone.identifier] { return calendar }
        let calendar = LocalCalendar(timeZone: timeZone)
        calendars[timeZone.identifier] = calendar
        return calendar
    }
}
