import BusRuntime
import Foundation
import Logging
import Metrics
import Observability
import PostgresStorage
import ServiceSupport
import WidgetBusProtocol

/// The single writer of widget state. Its ``Bus`` answers intents and snapshot requests and
/// publishes state events on one thread: serving snapshots on the same thread as commits keeps
/// every snapshot consistent with the sequence it reports.
public struct IntentHandlerService: BusService {
    public struct Configuration: Sendable {
        var intentsEndpoint: String
        var stateEventsEndpoint: String
        var snapshotEndpoint: String
        var store: Store
        /// Who this process is among the shards of a PostgreSQL store.
        var shard: ShardIdentity
        /// How many user states (one user's state of one app) stay decoded in memory.
        var stateCapacity: Int
        /// Microseconds the intents socket rests after a batch it takes (``Bus/replies(at:batch:pacing:_:)``).
        var intentPacingMicroseconds: Int
        /// How long an intent may wait in the service before it is refused (``RequestAdmission``).
        var intentAdmission: RequestAdmission
        /// Where timeline-service publishes, whose heartbeats say how far it has applied the state events.
        var timelineEventsEndpoint: String
        /// How far behind the state events timeline-service may fall before intents are held
        /// back (``FollowerLag``); 0 does not follow it.
        var longestTimelineLag: TimeInterval
        var binding: BusBinding

        public init(environment: [String: String]) throws {
            intentsEndpoint = BusEndpoint.intents.resolve(in: environment)
            stateEventsEndpoint = BusEndpoint.stateEvents.resolve(in: environment)
            snapshotEndpoint = BusEndpoint.stateSnapshot.resolve(in: environment)
            store = try Store(environment: environment)
            shard = ShardIdentity(
                name: EnvironmentSetting.shardName.value(in: environment) ?? ProcessInfo.processInfo.hostName,
                endpoint: EnvironmentSetting.shardEndpoint.value(in: environment) ?? intentsEndpoint,
                lease: TimeInterval(try EnvironmentSetting.shardLease.integer(in: environment, range: 300...60_000)) / 1000)
            stateCapacity = try EnvironmentSetting.stateCapacity.integer(in: environment, range: 1...10_000_000)
            intentPacingMicroseconds = try EnvironmentSetting.intentPacing.integer(in: environment, range: 0...100_000)
            intentAdmission = RequestAdmission(
                longestWait: TimeInterval(try EnvironmentSetting.intentLongestWait.integer(in: environment, range: 1...60_000)) / 1000)
            timelineEventsEndpoint = BusEndpoint.timelineEvents.resolve(in: environment)
            longestTimelineLag = TimeInterval(try EnvironmentSetting.timelineLongestLag.integer(in: environment, range: 0...60_000)) / 1000
            binding = try BusBinding(environment: environment)
        }
    }

    /// Requests taken from a socket at once and committed together (group commit): large enough
    /// that a burst costs few commits, small enough that the first reply of a burst is not held
    /// back long by the ones after it.
    static let drainBatch = 64
    /// How often replies kept for retries are pruned once older than ``handledRequestRetention``.
    static let pruneInterval: TimeInterval = 3600
    /// How often the sync backlog's gauges are read from the store (one scan of the pending
    /// records, which sync keeps few).
    static let backlogInterval: TimeInterval = 15

    let configuration: Configuration
    let logger: Logger

    public init(configuration: Configuration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    public var name: String { "intent-handler" }
    public var binding: BusBinding { configuration.binding }

    public func start(on bus: Bus) throws {
        let store: any StateStore =
            switch configuration.store {
            case .sqlite(let path): try SQLiteStateStore(path: path, codec: bus.codec)
            case .postgres(let url): try PostgresStateStore(url: url, shard: configuration.shard, codec: bus.codec, logger: logger)
            }
        let pruned = try store.pruneHandledRequests(olderThan: bus.clock.now.addingTimeInterval(-handledRequestRetention))
        // A store that fails for a while (a database server restarting) fails the requests
        // meanwhile; its housekeeping waits for the next round rather than stop the service.
        func housekeeping(every interval: TimeInterval, _ what: String, _ work: @escaping (Date) throws -> Void) {
            bus.every(interval) { [logger] now in
                do {
                    try work(now)
                } catch {
                    logger.warning("\(what) failed", metadata: ["widgetbus.error": "\(error)"])
                }
            }
        }
        if let interval = store.leaseRenewalInterval {
            housekeeping(every: interval, "renewing the shard's slot leases") { _ in try store.maintainLeases() }
        }
        housekeeping(every: Self.pruneInterval, "pruning the replies kept for retries") { now in
            _ = try store.pruneHandledRequests(olderThan: now.addingTimeInterval(-handledRequestRetention))
        }
        let backlog = (records: Gauge(MetricCatalog.syncBacklogRecords), age: Gauge(MetricCatalog.syncBacklogAge))
        func measureBacklog(now: Date) throws {
            let (records, oldest) = try store.pendingBacklog()
            backlog.records.record(records)
            backlog.age.record(oldest.map { max(0, now.timeIntervalSince($0)) } ?? 0)
        }
        try measureBacklog(now: bus.clock.now)
        housekeeping(every: Self.backlogInterval, "reading the sync backlog", measureBacklog)
        let processor = try IntentProcessor(
            store: store, codec: bus.codec, epoch: PublisherEpoch.random(), capacity: configuration.stateCapacity,
            clock: bus.clock)
        let publisher = try bus.publisher(
            name: name, epoch: processor.epoch, at: configuration.stateEventsEndpoint, lastSequence: processor.lastSequence)
        let clock = bus.clock
        let timelineLag =
            configuration.longestTimelineLag > 0
            ? try TimelineFollowing(
                bus: bus, endpoint: configuration.timelineEventsEndpoint, publisher: name, epoch: processor.epoch,
                lastSequence: processor.lastSequence, longestLag: configuration.longestTimelineLag) : nil
        // Intents wait at most their admission's time, and are not handled while timeline-service
        // is too far behind; a snapshot request, which replicas make once at start or after a
        // gap, is answered however long it waited.
        let intents = IntentEndpoint(
            address: configuration.intentsEndpoint, role: .intents, pacing: TimeInterval(configuration.intentPacingMicroseconds) / 1_000_000,
            admission: configuration.intentAdmission, hold: { timelineLag?.holdReason(at: clock.now) })
        for endpoint in [intents, IntentEndpoint(address: configuration.snapshotEndpoint, role: .snapshot)] {
            try bus.replies(
                at: endpoint.address, batch: Self.drainBatch, pacing: endpoint.pacing, admission: endpoint.admission, heldWhile: endpoint.hold
            ) { messages in
                let outcomes = processor.process(messages, on: endpoint.role)
                for event in outcomes.compactMap(\.event) {
                    try publisher.publish(topic: event.topic, sequence: event.sequence, payload: event.payload, trace: event.trace)
                }
                publisher.advance(to: processor.lastSequence)
                timelineLag?.published(through: publisher.lastSequence, at: clock.now)
                return outcomes.map(\.reply)
            }
        }

        logger.info(
            "intent-handler ready",
            metadata: [
                "widgetbus.endpoint.intents": "\(configuration.intentsEndpoint)", "widgetbus.endpoint.state_events": "\(configuration.stateEventsEndpoint)",
                "widgetbus.endpoint.state_snapshot": "\(configuration.snapshotEndpoint)", "widgetbus.store": "\(store.location)",
                "widgetbus.epoch": "\(processor.epoch)", "widgetbus.sequence": "\(processor.lastSequence)", "widgetbus.pruned_replies": "\(pruned)",
                "widgetbus.state_capacity": "\(configuration.stateCapacity)", "widgetbus.intent_pacing_us": "\(configuration.intentPacingMicroseconds)",
                "widgetbus.intent_longest_wait_ms": "\(Int(configuration.intentAdmission.longestWait * 1000))",
                "widgetbus.timeline_longest_lag_ms": "\(Int(configuration.longestTimelineLag * 1000))",
            ])
        bus.onStop { _ in
            logger.info("intent-handler stopping", metadata: ["widgetbus.sequence": "\(publisher.lastSequence)"])
        }
    }
}

extension IntentHandlerService.Configuration {
    /// Where the state is kept (``StateStore``).
    enum Store: Sendable, Equatable {
        /// A SQLite file: `intent-handler.sqlite` in `WIDGETBUS_DATA_DIR` unless the setting names another.
        case sqlite(path: String)
        case postgres(PostgresURL)

        /// A `postgres://` URL is PostgreSQL; anything else is the path of a SQLite file; unset,
        /// the embedded default.
        init(environment: [String: String]) throws {
            let value = environment[EnvironmentSetting.stateStore.variable]?.trimmingCharacters(in: .whitespaces) ?? ""
            if value.isEmpty {
                let directory = EnvironmentSetting.dataDirectory.resolve(in: environment)
                self = .sqlite(path: (directory as NSString).appendingPathComponent("intent-handler.sqlite"))
            } else if PostgresURL.isPostgres(value) {
                do {
                    self = .postgres(try PostgresURL(value))
                } catch {
                    throw InvalidSetting("\(EnvironmentSetting.stateStore.variable): \(error)")
                }
            } else {
                self = .sqlite(path: value)
            }
        }
    }
}

extension IntentHandlerService {
    /// One of the service's request endpoints and how it admits requests.
    struct IntentEndpoint {
        var address: String
        var role: IntentProcessor.Endpoint
        var pacing: TimeInterval = 0
        var admission: RequestAdmission?
        var hold: () -> String? = { nil }
    }
}

extension EnvironmentSetting {
    public static let shardName = EnvironmentSetting(
        variable: "WIDGETBUS_SHARD_NAME", defaultValue: "the host name",
        purpose: "with a postgres:// state store: this intent-handler's name among the shards sharing the store; a second live process with the same name does not start")
    public static let shardEndpoint = EnvironmentSetting(
        variable: "WIDGETBUS_SHARD_ENDPOINT", defaultValue: "WIDGETBUS_INTENTS",
        purpose: "with a postgres:// state store: the intents endpoint other shards send clients to for this shard's users (wrong_shard)")
    public static let shardLease = EnvironmentSetting(
        variable: "WIDGETBUS_SHARD_LEASE_MS", defaultValue: "3000",
        purpose: "with a postgres:// state store: how long a shard's slot leases last unrenewed (renewed every third of it); a dead shard's users move to the others within about this long and one renewal")
    public static let stateStore = EnvironmentSetting(
        variable: "WIDGETBUS_STATE_STORE", defaultValue: "none: SQLite file intent-handler.sqlite in WIDGETBUS_DATA_DIR",
        purpose: "where intent-handler keeps widget state: the path of a SQLite file, or a postgres:// or postgresql:// URL (sslmode, sslrootcert)")
    public static let stateCapacity = EnvironmentSetting(
        variable: "WIDGETBUS_STATE_CAPACITY", defaultValue: "100000",
        purpose: "user states (one user's state of one app) kept decoded in memory; the least recently used beyond it are read from the store again")
    /// Every commit costs about the same however many intents it holds, so under load the
    /// intents that arrive close together should share one. A rest after a batch does that
    /// without delaying an intent that arrives after a quiet spell: only one that arrives during
    /// the rest waits, and at most this long. Rests stop while they do not pay (``SocketPacing``).
    public static let intentPacing = EnvironmentSetting(
        variable: "WIDGETBUS_INTENT_PACING_US", defaultValue: "1000",
        purpose: "microseconds the intents socket rests after a batch, so that intents arriving meanwhile share one commit (0: no rests)")
    /// The lag within which timeline-service's own backlog is kept under overload: long enough
    /// that a moment's stall at a steady load holds nothing back, short enough that once the
    /// load drops timeline-service has caught up within about this long.
    public static let timelineLongestLag = EnvironmentSetting(
        variable: "WIDGETBUS_TIMELINE_LONGEST_LAG_MS", defaultValue: "1000",
        purpose: "milliseconds timeline-service may fall behind the state events (by its heartbeats, and 1,000 events too) before intent-handler holds intents back; held intents wait within WIDGETBUS_INTENT_LONGEST_WAIT_MS (0: do not follow timeline-service)")
    /// Under overload an intent that cannot be handled soon is better refused at once than
    /// handled after its client gave up: the refusal costs a fraction of the handling, so the
    /// service stays at most this far behind however much is offered, and catches up within
    /// about this long once the load drops.
    public static let intentLongestWait = EnvironmentSetting(
        variable: "WIDGETBUS_INTENT_LONGEST_WAIT_MS", defaultValue: "500",
        purpose: "milliseconds an intent may wait in intent-handler before it is refused with unavailable (overload), unhandled")
}
