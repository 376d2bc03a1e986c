/// The message catalog: every `type` the bus carries. Widget messages map onto the domain's
/// intents in `Catalog/` (one file per app).
public enum MessageType: String, CaseIterable, Codable, Sendable {
    // Tension Check intents (to intent-handler)
    case recordTension = "RecordTensionIntent"
    case markInterventionDone = "MarkInterventionDoneIntent"
    case resetWidget = "ResetWidgetIntent"

    // Diet (to intent-handler)
    case quickLogFood = "QuickLogFoodIntent"
    case configureDietWidget = "ConfigureDietWidgetIntent"
    case updateNutrition = "UpdateNutrition"
    case updateGoals = "UpdateGoals"
    case updateRecentFoods = "UpdateRecentFoods"
    case setTrackingMode = "SetTrackingMode"

    // TenX (to intent-handler)
    case createGoal = "CreateGoal"
    case archiveGoal = "ArchiveGoal"
    case unarchiveGoal = "UnarchiveGoal"
    case completeOnboarding = "CompleteOnboarding"
    case createDayEntry = "CreateDayEntry"
    case toggleFocus = "ToggleFocus"

    // Stress Monitor (to intent-handler)
    case recordStressMeasurement = "RecordStressMeasurement"
    case updateWidget = "UpdateWidgetIntent"

    // Jitter (to intent-handler)
    case startDrink = "StartDrinkIntent"
    case completeDrink = "CompleteDrinkIntent"
    case updateJitterScores = "UpdateJitterScores"

    // User settings (to intent-handler)
    /// The user's IANA time zone; every local day and hour of their widgets follows it.
    case setTimeZone = "SetTimeZone"
    /// A device's WidgetKit push token for the user's widgets: added, or updated in place.
    case registerWidgetPushToken = "RegisterWidgetPushToken"
    /// A push token no longer to be used (the app's, or push-gateway's when APNs refused it).
    case removeWidgetPushToken = "RemoveWidgetPushToken"

    /// The user's app came to the foreground: the moment a user's pending records are synced.
    case appForeground = "AppForeground"

    // Sync (to intent-handler, from sync-agent)
    /// The records the sync target has confirmed; intent-handler clears exactly those revisions.
    case acknowledgeRecords = "AcknowledgeRecords"
    /// The users who have records waiting for sync.
    case pendingUsersRequest = "PendingUsersRequest"

    // Sync agent (to sync-agent)
    /// Run a sync pass for the user now and answer with its result.
    case syncRequest = "SyncRequest"
    /// The latest sync result of every user (or of one user).
    case syncStatusRequest = "SyncStatusRequest"

    // Metrics (to metrics-ingest)
    /// PUSH to `WIDGETBUS_METRICS`: one sample; no reply.
    case metricSample = "MetricSample"
    /// PUSH to `WIDGETBUS_METRICS`: up to 1,000 samples, each accepted or rejected on its own; no reply.
    case metricBatch = "MetricBatch"
    /// To metrics-ingest's snapshot endpoint: accepted, duplicate and rejected counters.
    case metricsStatusRequest = "MetricsStatusRequest"

    // Queries
    /// To timeline-service: the current timeline of a kind for a user.
    case timelineRequest = "TimelineRequest"
    /// To a publisher's snapshot endpoint: what it publishes, as of now, under a topic prefix
    /// (intent-handler's states, metrics-ingest's aggregates, timeline-service's timelines).
    case snapshotRequest = "SnapshotRequest"
    /// To intent-handler: the records of a user still waiting for sync.
    case pendingRecordsRequest = "PendingRecordsRequest"
    /// To any request endpoint: a liveness check.
    case ping = "Ping"

    // Replies
    case stateReply = "StateReply"
    case timelineReply = "TimelineReply"
    case snapshotReply = "SnapshotReply"
    case pendingRecordsReply = "PendingRecordsReply"
    case profileReply = "ProfileReply"
    case pushTokensReply = "PushTokensReply"
    case acknowledgeReply = "AcknowledgeReply"
    case pendingUsersReply = "PendingUsersReply"
    case syncReply = "SyncReply"
    case syncStatusReply = "SyncStatusReply"
    case metricsSnapshotReply = "MetricsSnapshotReply"
    case timelineSnapshotReply = "TimelineSnapshotReply"
    case metricsStatusReply = "MetricsStatusReply"
    case pong = "Pong"
    case error = "Error"

    // Events
    case stateChanged = "StateChanged"
    case profileChanged = "ProfileChanged"
    case pushTokensChanged = "PushTokensChanged"
    case appForegrounded = "AppForegrounded"
    case syncCompleted = "SyncCompleted"
    case metricsChanged = "MetricsChanged"
    case timelineChanged = "TimelineChanged"
    case heartbeat = "Heartbeat"
}

extension MessageType {
    /// The intents and app messages (docs/PROTOCOL.md §5): what a user's widgets and app send to
    /// intent-handler about that user, idempotent by id. The sync, query and reply types are the
    /// services' own. app-gateway's `POST /v1/intents` takes these types and no other.
    public static let sentByApps: [MessageType] = [
        .recordTension, .markInterventionDone, .resetWidget,
        .quickLogFood, .configureDietWidget, .updateNutrition, .updateGoals, .updateRecentFoods, .setTrackingMode,
        .createGoal, .archiveGoal, .unarchiveGoal, .completeOnboarding, .createDayEntry, .toggleFocus,
        .recordStressMeasurement, .updateWidget,
        .startDrink, .completeDrink, .updateJitterScores,
        .setTimeZone, .registerWidgetPushToken, .removeWidgetPushToken, .appForeground,
    ]
}
