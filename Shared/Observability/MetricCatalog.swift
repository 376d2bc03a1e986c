import Metrics

/// One metric WidgetBus reports: its Prometheus name, kind, labels and meaning. The meaning is
/// the metric's `# HELP` line on `/metrics` and its row in docs/OBSERVABILITY.md (a test keeps
/// the three equal), so a metric is declared here once and made by name wherever it is counted.
public struct MetricDescription: Sendable, Hashable {
    public enum Kind: String, Sendable {
        case counter, gauge, histogram
    }

    /// `widgetbus_…`, in base units, `_total` for a counter, `_seconds` for a duration.
    public let name: String
    public let kind: Kind
    /// The label names; each has few values (an endpoint, a type, a code), never a user id.
    public let labels: [String]
    public let help: String
}

/// Every metric of every WidgetBus service, by where it is counted.
public enum MetricCatalog {
    // MARK: - The bus runtime, in every service

    public static let busMessagesReceived = MetricDescription(
        name: "widgetbus_bus_messages_received_total", kind: .counter, labels: ["endpoint"],
        help: "Messages taken from a socket and handed to its handler: requests, pushed samples, events and heartbeats, snapshot replies (a request an admission refuses is counted in widgetbus_bus_requests_shed_total instead).")
    public static let busBatchSize = MetricDescription(
        name: "widgetbus_bus_batch_size", kind: .histogram, labels: ["endpoint"],
        help: "Messages a socket's handler took in one turn of the loop.")
    public static let busHandlerDuration = MetricDescription(
        name: "widgetbus_bus_handler_duration_seconds", kind: .histogram, labels: ["endpoint"],
        help: "Time a socket's handler took for one turn's batch (for a subscriber, a dealer or the ZAP sockets, handed each message as it is taken, that includes taking them).")
    public static let busRequests = MetricDescription(
        name: "widgetbus_bus_requests_total", kind: .counter, labels: ["endpoint", "type"],
        help: "Requests by message type, or type=\"undecodable\" for one that did not decode (answered with its error).")
    public static let busRepliesSent = MetricDescription(
        name: "widgetbus_bus_replies_sent_total", kind: .counter, labels: ["endpoint"],
        help: "Replies sent, at once or later (a timeline request that waited for its version).")
    public static let busRequestDuration = MetricDescription(
        name: "widgetbus_bus_request_duration_seconds", kind: .histogram, labels: ["endpoint"],
        help: "From taking a request off its socket to sending its reply, for requests the handler answers at once (a wait in an admission queue included).")
    public static let busRequestsWaiting = MetricDescription(
        name: "widgetbus_bus_requests_waiting", kind: .gauge, labels: ["endpoint"],
        help: "Requests an endpoint with an admission took off its socket and has not handled yet, after its last turn.")
    public static let busRequestsShed = MetricDescription(
        name: "widgetbus_bus_requests_shed_total", kind: .counter, labels: ["endpoint"],
        help: "Requests an endpoint with an admission refused with unavailable, unhandled: they waited as long as it allows (also while held back for a follower that is behind), found its queue full, or were waiting when it stopped.")
    public static let busEventsPublished = MetricDescription(
        name: "widgetbus_bus_events_published_total", kind: .counter, labels: ["endpoint"],
        help: "Events published (heartbeats not counted).")
    public static let errorReplies = MetricDescription(
        name: "widgetbus_error_replies_total", kind: .counter, labels: ["code"],
        help: "Error replies made, by error code (docs/PROTOCOL.md); a retried request's stored reply is not counted again.")
    public static let replicaLag = MetricDescription(
        name: "widgetbus_replica_lag_events", kind: .gauge, labels: ["endpoint"],
        help: "Events the publisher's last heartbeat was ahead of this replica of it (0 after a snapshot).")
    public static let replicaResyncs = MetricDescription(
        name: "widgetbus_replica_snapshots_requested_total", kind: .counter, labels: ["endpoint", "reason"],
        help: "Snapshots a replica requested, by reason: start, timeout, gap, restart, overflow, requested.")
    public static let replicaEntries = MetricDescription(
        name: "widgetbus_replica_entries", kind: .gauge, labels: ["endpoint"],
        help: "Entries a replica holds in memory: states and profiles, aggregates, or timelines.")
    public static let curveRefusals = MetricDescription(
        name: "widgetbus_curve_refusals_total", kind: .counter, labels: ["endpoint", "reason"],
        help: "CURVE handshakes refused, by reason: key_not_allowed (a key not on the endpoint's allow-list), mechanism_mismatch (a client without CURVE: NULL or PLAIN), handshake_failed (a client expecting another server key, or a broken handshake), handshake_incomplete (the connection ended before its handshake did: a port probe, or a client without CURVE that hung up first).")
    public static let storeCommitDuration = MetricDescription(
        name: "widgetbus_store_commit_duration_seconds", kind: .histogram, labels: ["store"],
        help: "One write transaction of a service's store, its commit included (SQLite, or intent-handler's PostgreSQL store, also labelled intent-handler).")

    // MARK: - intent-handler

    public static let intentStatesCached = MetricDescription(
        name: "widgetbus_intent_states_cached", kind: .gauge, labels: [],
        help: "User states kept decoded in memory (at most WIDGETBUS_STATE_CAPACITY), as of the last commit that changed one.")
    public static let followerLag = MetricDescription(
        name: "widgetbus_follower_lag_seconds", kind: .gauge, labels: ["follower"],
        help: "How far a follower of the state events was behind at its latest heartbeat: how long the oldest event it had not applied had been out (0: caught up). Intents are held back while it is more than WIDGETBUS_TIMELINE_LONGEST_LAG_MS and at least 1,000 events behind.")
    public static let intentsHeld = MetricDescription(
        name: "widgetbus_intents_held", kind: .gauge, labels: [],
        help: "1 while intent-handler holds intents back because timeline-service is too far behind the state events, 0 otherwise.")
    public static let syncBacklogRecords = MetricDescription(
        name: "widgetbus_sync_backlog_records", kind: .gauge, labels: [],
        help: "Records waiting to be synced, read from the store every 15 s.")
    public static let syncBacklogAge = MetricDescription(
        name: "widgetbus_sync_backlog_oldest_age_seconds", kind: .gauge, labels: [],
        help: "How long the oldest record waiting to be synced has waited (0 when none waits), read every 15 s.")

    public static let shardSlotsOwned = MetricDescription(
        name: "widgetbus_shard_slots_owned", kind: .gauge, labels: [],
        help: "Slots (of 256) whose users this intent-handler serves, with a PostgreSQL state store shared by shards (docs/SCALING.md).")
    public static let shardSlotMoves = MetricDescription(
        name: "widgetbus_shard_slot_moves_total", kind: .counter, labels: ["change"],
        help: "Slots this intent-handler took (free, or a lease that expired), released (above its even share), or lost (its lease expired or was taken: it was paused or cut off from PostgreSQL).")

    // MARK: - timeline-service

    public static let timelinesPublished = MetricDescription(
        name: "widgetbus_timelines_published_total", kind: .counter, labels: ["kind"],
        help: "Timelines built and published, for a change or a refresh at a policy's date.")
    public static let timelineRequestsWaiting = MetricDescription(
        name: "widgetbus_timeline_requests_waiting", kind: .gauge, labels: [],
        help: "Timeline requests waiting for the state version they asked for.")

    // MARK: - snapshot-writer

    public static let snapshotFilesWritten = MetricDescription(
        name: "widgetbus_snapshot_files_written_total", kind: .counter, labels: [],
        help: "Snapshot files written.")
    public static let snapshotWriteFailures = MetricDescription(
        name: "widgetbus_snapshot_write_failures_total", kind: .counter, labels: [],
        help: "Snapshot file writes that failed (each is tried again after a second).")
    public static let snapshotChangesCoalesced = MetricDescription(
        name: "widgetbus_snapshot_changes_coalesced_total", kind: .counter, labels: [],
        help: "Timeline changes that replaced one still waiting for its write: one write for both.")
    public static let snapshotFilesRefreshed = MetricDescription(
        name: "widgetbus_snapshot_files_refreshed_total", kind: .counter, labels: [],
        help: "Files found not showing what was last written to them (deleted or changed on disk), written again.")
    public static let snapshotWriteBatchSize = MetricDescription(
        name: "widgetbus_snapshot_write_batch_size", kind: .histogram, labels: [],
        help: "Files written together, sharing their two durability barriers.")
    public static let snapshotFileLag = MetricDescription(
        name: "widgetbus_snapshot_file_lag_seconds", kind: .histogram, labels: [],
        help: "How long a file had been behind its timeline when its write was done (durable): from the turn that took the first timeline event it did not show yet.")
    public static let snapshotTimelinesFetched = MetricDescription(
        name: "widgetbus_snapshot_timelines_fetched_total", kind: .counter, labels: [],
        help: "Timelines asked of timeline-service when their file's write came due: the waiting-bytes budget had no room to keep them.")
    public static let snapshotWaitingBytes = MetricDescription(
        name: "widgetbus_snapshot_waiting_bytes", kind: .gauge, labels: [],
        help: "Bytes of timeline waiting in memory for their files' writes (at most the budget, WIDGETBUS_SNAPSHOT_WAITING_KB, and one batch of fetched timelines).")
    public static let snapshotFilesWaiting = MetricDescription(
        name: "widgetbus_snapshot_files_waiting", kind: .gauge, labels: [],
        help: "Files waiting for their write, and those of the batch being written (a file in both counts twice): 0 when the files have caught up with the timeline events taken.")

    // MARK: - metrics-ingest

    public static let metricSamples = MetricDescription(
        name: "widgetbus_metric_samples_total", kind: .counter, labels: ["result"],
        help: "Samples by result: accepted, duplicate, or the reason one was rejected.")
    public static let metricMessagesRefused = MetricDescription(
        name: "widgetbus_metric_messages_refused_total", kind: .counter, labels: ["code"],
        help: "Pushed messages refused as a whole, by error code.")

    // MARK: - sync-agent

    public static let syncPasses = MetricDescription(
        name: "widgetbus_sync_passes_total", kind: .counter, labels: ["result"],
        help: "Sync passes by result: succeeded (every pending record pushed), partial (some pushed, some not), failed (none pushed).")
    public static let syncPassDuration = MetricDescription(
        name: "widgetbus_sync_pass_duration_seconds", kind: .histogram, labels: [],
        help: "One sync pass for one user, from asking for the pending records to acknowledging them.")
    public static let syncRecordsPushed = MetricDescription(
        name: "widgetbus_sync_records_pushed_total", kind: .counter, labels: [],
        help: "Records stored at the sync target and acknowledged to intent-handler.")
    public static let syncRecordsPending = MetricDescription(
        name: "widgetbus_sync_records_pending", kind: .histogram, labels: [],
        help: "Records a pass found pending for its user.")
    public static let syncTargetCommitDuration = MetricDescription(
        name: "widgetbus_sync_target_commit_duration_seconds", kind: .histogram, labels: [],
        help: "One step at the sync target (PostgreSQL or SQLite): the schema, or an upsert transaction with its commit.")
    public static let syncUsersPending = MetricDescription(
        name: "widgetbus_sync_users_pending", kind: .gauge, labels: [],
        help: "Users with records waiting to be synced, as the last periodic sweep found them.")

    // MARK: - push-gateway

    public static let pushChanges = MetricDescription(
        name: "widgetbus_push_changes_total", kind: .counter, labels: ["result"],
        help: "Widget changes seen per token that covers the widget, by what the budget made of them: scheduled (a new push), joined (a push already due), covered (the widget reloads by itself first).")
    public static let pushesSent = MetricDescription(
        name: "widgetbus_pushes_total", kind: .counter, labels: ["result"],
        help: "Pushes sent, by outcome: delivered, token_gone (the token was removed), retry (429, 5xx, no connection), refused (another 4xx), dry_run (logged, not sent).")
    public static let pushDuration = MetricDescription(
        name: "widgetbus_push_duration_seconds", kind: .histogram, labels: [],
        help: "One push, from its request to APNs' answer.")
    public static let pushesWaiting = MetricDescription(
        name: "widgetbus_pushes_waiting", kind: .gauge, labels: [],
        help: "Tokens with a push scheduled and not yet sent.")
    public static let pushTokensRefused = MetricDescription(
        name: "widgetbus_push_tokens_refused_total", kind: .counter, labels: ["reason"],
        help: "Push tokens APNs refused for good without calling them gone (DeviceTokenNotForTopic), by reason: sent nothing more, their registrations kept.")

    // MARK: - app-gateway

    public static let gatewayRequests = MetricDescription(
        name: "widgetbus_gateway_requests_total", kind: .counter, labels: ["operation", "status"],
        help: "HTTP requests answered, by operation (method and route, or other) and status code.")
    public static let gatewayRequestDuration = MetricDescription(
        name: "widgetbus_gateway_request_duration_seconds", kind: .histogram, labels: ["operation"],
        help: "One HTTP request, from its head to its answer's head (an event stream: until it opens).")
    public static let gatewayTokenRefusals = MetricDescription(
        name: "widgetbus_gateway_token_refusals_total", kind: .counter, labels: ["reason"],
        help: "Requests refused 401 because their bearer token proved no user, by reason (docs/API.md, Refusals).")
    public static let gatewayEventStreams = MetricDescription(
        name: "widgetbus_gateway_event_streams", kind: .gauge, labels: [],
        help: "Event streams open.")

    public static let all: [MetricDescription] = [
        busMessagesReceived, busBatchSize, busHandlerDuration, busRequests, busRepliesSent, busRequestDuration, busRequestsWaiting, busRequestsShed, busEventsPublished,
        errorReplies, replicaLag, replicaResyncs, replicaEntries, curveRefusals, storeCommitDuration,
        intentStatesCached, followerLag, intentsHeld, syncBacklogRecords, syncBacklogAge, shardSlotsOwned, shardSlotMoves, timelinesPublished, timelineRequestsWaiting,
        snapshotFilesWritten, snapshotWriteFailures, snapshotChangesCoalesced, snapshotFilesRefreshed, snapshotWriteBatchSize, snapshotFileLag,
        snapshotTimelinesFetched, snapshotWaitingBytes, snapshotFilesWaiting,
        metricSamples, metricMessagesRefused,
        syncPasses, syncPassDuration, syncRecordsPushed, syncRecordsPending, syncTargetCommitDuration, syncUsersPending,
        pushChanges, pushesSent, pushDuration, pushesWaiting, pushTokensRefused,
        gatewayRequests, gatewayRequestDuration, gatewayTokenRefusals, gatewayEventStreams,
    ]

    /// The description of the metric named `name`.
    public static func describing(_ name: String) -> MetricDescription? {
        byName[name]
    }

    private static let byName = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })
}

// The handles of swift-metrics, made from a description: the one way WidgetBus makes a metric.
extension Counter {
    public convenience init(_ metric: MetricDescription, _ labels: [String: String] = [:]) {
        self.init(label: metric.name, dimensions: metric.dimensions(labels))
    }
}

extension Gauge {
    public convenience init(_ metric: MetricDescription, _ labels: [String: String] = [:]) {
        self.init(label: metric.name, dimensions: metric.dimensions(labels))
    }
}

extension Recorder {
    /// A histogram of values (sizes, counts).
    public convenience init(histogramOf metric: MetricDescription, _ labels: [String: String] = [:]) {
        self.init(label: metric.name, dimensions: metric.dimensions(labels), aggregate: true)
    }
}

extension Timer {
    /// A histogram of durations, in seconds.
    public convenience init(_ metric: MetricDescription, _ labels: [String: String] = [:]) {
        self.init(label: metric.name, dimensions: metric.dimensions(labels))
    }
}

extension MetricDescription {
    /// The dimensions for `values`, in the order of ``labels``: every label given, no other.
    func dimensions(_ values: [String: String]) -> [(String, String)] {
        precondition(Set(values.keys) == Set(labels), "\(name) takes the labels \(labels), got \(values.keys.sorted())")
        return labels.map { ($0, values[$0]!) }
    }
}
