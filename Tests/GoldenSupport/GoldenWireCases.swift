// Shared by WidgetBusProtocolTests and ServiceSupportTests: each of those folders holds a
// symbolic link to this file (Tests/GoldenSupport is no target of its own). Public API only.

import Foundation
import WidgetBusProtocol
import WidgetDomain

/// One golden message: its envelope as the sender encodes it (fixed ids and `sentAt`), and how
/// to decode those bytes and encode them again.
struct GoldenWireCase: Sendable, CustomStringConvertible {
    enum Role: Sendable { case request, reply, event }

    /// How a service sends this reply: through ServiceSupport's `codec.reply(to:user:type:body:now:)`
    /// or `codec.errorReply(to:user:code:message:)`, which give it a fresh id (and, for an
    /// error, the current time). ServiceSupportTests checks that they send the golden bytes.
    struct ServiceReply: Sendable {
        enum Made: Sendable {
            case reply(MessageType, body: @Sendable () throws -> any Encodable & Sendable)
            case error(ErrorCode, message: String, redirect: ShardRedirect?)
        }

        var inReplyTo: String?
        var user: String?
        var made: Made
    }

    /// `<type>` or `<type>-<variant>`: the golden file's name.
    var name: String
    var type: MessageType
    var role: Role
    var encode: @Sendable (WireCodec) throws -> Data
    var reencode: @Sendable (WireCodec, Data) throws -> Data
    var serviceReply: ServiceReply?

    var description: String { name }

    private static func name(_ type: MessageType, _ variant: String?) -> String {
        variant.map { "\(type.rawValue)-\($0)" } ?? type.rawValue
    }

    private static func codable<Body: Codable & Sendable>(
        _ type: MessageType, _ variant: String?, role: Role, id: String, user: String?, inReplyTo: String?, traceparent: String? = nil,
        serviceReply: ServiceReply? = nil, body: @escaping @Sendable () throws -> Body
    ) -> GoldenWireCase {
        GoldenWireCase(
            name: name(type, variant), type: type, role: role,
            encode: { codec in
                try codec.encode(Envelope(
                    id: id, type: type.rawValue, user: user, sentAt: GoldenFixtures.now, inReplyTo: inReplyTo, traceparent: traceparent,
                    body: try body()))
            },
            reencode: { codec, data in try codec.encode(codec.decode(Envelope<Body>.self, from: data)) },
            serviceReply: serviceReply)
    }

    /// A request as a client writes it (no `inReplyTo`), in a trace when `traceparent` is given.
    static func request<Body: Codable & Sendable>(
        _ type: MessageType, _ variant: String? = nil, user: String? = GoldenFixtures.user, traceparent: String? = nil,
        body: @escaping @Sendable () throws -> Body
    ) -> GoldenWireCase {
        codable(type, variant, role: .request, id: GoldenFixtures.requestID, user: user, inReplyTo: nil, traceparent: traceparent, body: body)
    }

    /// A reply to ``GoldenFixtures/requestID``, as `codec.reply` makes it (with a fixed id).
    static func reply<Body: Codable & Sendable>(
        _ type: MessageType, _ variant: String? = nil, user: String? = GoldenFixtures.user,
        body: @escaping @Sendable () throws -> Body
    ) -> GoldenWireCase {
        codable(
            type, variant, role: .reply, id: GoldenFixtures.replyID, user: user, inReplyTo: GoldenFixtures.requestID,
            serviceReply: ServiceReply(inReplyTo: GoldenFixtures.requestID, user: user, made: .reply(type, body: body)),
            body: body)
    }

    /// An `Error` reply, as `codec.errorReply` makes it (with a fixed id and clock).
    static func error(
        _ variant: String?, inReplyTo: String?, user: String?, code: ErrorCode, message: String, redirect: ShardRedirect? = nil
    ) -> GoldenWireCase {
        codable(
            .error, variant, role: .reply, id: GoldenFixtures.replyID, user: user, inReplyTo: inReplyTo,
            serviceReply: ServiceReply(inReplyTo: inReplyTo, user: user, made: .error(code, message: message, redirect: redirect)),
            body: { ErrorBody(code: code, message: message, redirect: redirect) })
    }

    /// An event as a publisher builds it (no `inReplyTo`), continuing a trace when `traceparent`
    /// is given.
    static func event<Body: Codable & Sendable>(
        _ type: MessageType, _ variant: String? = nil, user: String? = GoldenFixtures.user, traceparent: String? = nil,
        body: @escaping @Sendable () throws -> Body
    ) -> GoldenWireCase {
        codable(type, variant, role: .event, id: GoldenFixtures.eventID, user: user, inReplyTo: nil, traceparent: traceparent, body: body)
    }

    /// A `TimelineReply` (its body is `Encodable` only: it decodes through the kind's content type).
    static func timelineReply(_ spec: TimelineSpec) -> GoldenWireCase {
        GoldenWireCase(
            name: name(.timelineReply, spec.name), type: .timelineReply, role: .reply,
            encode: { codec in
                try codec.encode(Envelope(
                    id: GoldenFixtures.replyID, type: MessageType.timelineReply.rawValue, user: GoldenFixtures.user,
                    sentAt: GoldenFixtures.now, inReplyTo: GoldenFixtures.requestID, body: try spec.body()))
            },
            reencode: { codec, data in
                try spec.kind.app.visitTimelineContent(TimelineReencoding(shape: .envelope, data: data, codec: codec))
            },
            serviceReply: ServiceReply(
                inReplyTo: GoldenFixtures.requestID, user: GoldenFixtures.user, made: .reply(.timelineReply, body: { try spec.body() })))
    }

    /// A `TimelineSnapshotReply` holding the timelines of `specs`, all of one kind (`Encodable`
    /// only, as its timelines).
    static func timelineSnapshotReply(_ specs: [TimelineSpec], sequence: UInt64) -> GoldenWireCase {
        let body: @Sendable () throws -> TimelineSnapshotBody = {
            TimelineSnapshotBody(epoch: GoldenFixtures.epoch, sequence: sequence, timelines: try specs.map { try $0.body() })
        }
        return GoldenWireCase(
            name: name(.timelineSnapshotReply, specs[0].kind.rawValue), type: .timelineSnapshotReply, role: .reply,
            encode: { codec in
                try codec.encode(Envelope(
                    id: GoldenFixtures.replyID, type: MessageType.timelineSnapshotReply.rawValue, sentAt: GoldenFixtures.now,
                    inReplyTo: GoldenFixtures.requestID, body: try body()))
            },
            reencode: { codec, data in
                try specs[0].kind.app.visitTimelineContent(TimelineReencoding(shape: .snapshotEnvelope, data: data, codec: codec))
            },
            serviceReply: ServiceReply(inReplyTo: GoldenFixtures.requestID, user: nil, made: .reply(.timelineSnapshotReply, body: body)))
    }

    /// A `TimelineChanged` event (`Encodable` only, as its timeline).
    static func timelineChanged(_ spec: TimelineSpec, sequence: UInt64, causedBy: String?) -> GoldenWireCase {
        GoldenWireCase(
            name: name(.timelineChanged, spec.name + (causedBy == nil ? "-uncaused" : "")), type: .timelineChanged, role: .event,
            encode: { codec in
                try codec.encode(Envelope(
                    id: GoldenFixtures.eventID, type: MessageType.timelineChanged.rawValue, user: GoldenFixtures.user,
                    sentAt: GoldenFixtures.now,
                    body: TimelineChangedBody(epoch: GoldenFixtures.epoch, sequence: sequence, causedBy: causedBy, timeline: try spec.body())))
            },
            reencode: { codec, data in
                try spec.kind.app.visitTimelineContent(TimelineReencoding(shape: .changedEnvelope, data: data, codec: codec))
            })
    }
}

/// A `TimelineBody`, `TimelineReply` or `TimelineChanged` decoded through its content type and
/// encoded again.
struct TimelineReencoding: TimelineContentVisitor {
    enum Shape { case body, envelope, changedEnvelope, snapshotEnvelope }

    struct DecodedChanged<Content: Codable & Sendable & Equatable>: Decodable, Sendable {
        var epoch: String
        var sequence: UInt64
        var causedBy: String?
        var timeline: DecodedTimelineBody<Content>
    }

    struct DecodedSnapshot<Content: Codable & Sendable & Equatable>: Decodable, Sendable {
        var epoch: String
        var sequence: UInt64
        var timelines: [DecodedTimelineBody<Content>]
    }

    var shape: Shape
    var data: Data
    var codec: WireCodec

    func visit<Content: Codable & Sendable & Equatable>(_ wrap: @escaping (Timeline<Content>) -> WidgetTimeline) throws -> Data {
        switch shape {
        case .body:
            return try codec.encode(TimelineBody(codec.decode(DecodedTimelineBody<Content>.self, from: data), wrap))
        case .envelope:
            let envelope = try codec.decode(Envelope<DecodedTimelineBody<Content>>.self, from: data)
            return try codec.encode(envelope.withBody(TimelineBody(envelope.body, wrap)))
        case .changedEnvelope:
            let envelope = try codec.decode(Envelope<DecodedChanged<Content>>.self, from: data)
            let body = envelope.body
            return try codec.encode(envelope.withBody(
                TimelineChangedBody(epoch: body.epoch, sequence: body.sequence, causedBy: body.causedBy, timeline: TimelineBody(body.timeline, wrap))))
        case .snapshotEnvelope:
            let envelope = try codec.decode(Envelope<DecodedSnapshot<Content>>.self, from: data)
            let body = envelope.body
            return try codec.encode(envelope.withBody(
                TimelineSnapshotBody(epoch: body.epoch, sequence: body.sequence, timelines: body.timelines.map { TimelineBody($0, wrap) })))
        }
    }
}

extension GoldenWireCase {
    private static var world: GoldenFixtures.World {
        get throws { try GoldenFixtures.world() }
    }

    /// A body as widgetctl sends it: the `--body` text read as a ``JSONValue``.
    private static func widgetctlBody(_ text: String) throws -> JSONValue {
        try WireCodec().decode(JSONValue.self, from: Data(text.utf8))
    }

    private static let user = GoldenFixtures.user

    static let all: [GoldenWireCase] = requests + replies + events

    /// Every request type, with typed bodies as a Swift client (sync-agent, the tests) writes them,
    /// and a few as widgetctl writes them (`JSONValue` bodies).
    static let requests: [GoldenWireCase] = [
        // Tension Check
        .request(.recordTension) { RecordTensionBody(level: 10) },
        .request(.recordTension, "widgetctl") { try widgetctlBody(#"{"level":7}"#) },
        .request(.recordTension, "traced", traceparent: GoldenFixtures.requestTraceparent) { RecordTensionBody(level: 7) },
        .request(.markInterventionDone) { MarkInterventionDoneBody(checkInId: try world.suggestedCheckInID) },
        .request(.resetWidget) { EmptyBody() },
        // Diet
        .request(.quickLogFood) { QuickLogFoodBody(foodId: "banana") },
        .request(.configureDietWidget) { ConfigureDietWidgetBody(kind: "QuickLogWidget", showMacros: false, compactMode: true) },
        .request(.configureDietWidget, "kind-only") { ConfigureDietWidgetBody(kind: "LockScreenWidget") },
        .request(.updateNutrition) { GoldenFixtures.nutrition },
        .request(.updateNutrition, "widgetctl-numbers") {
            // Unknown fields are ignored by the server: `extra` is there for JSONValue's numbers.
            try widgetctlBody(#"""
                {"calories": 1234.5, "protein": 0.1, "carbs": 2.0, "fat": 1e-7,
                 "extra": [-12.5, -0.0, 0, 1e15, 999999999999999, 1e21, 123456789.123456789, 1.7976931348623157e308, 5e-324, -7],
                 "note": "\u00e9 \ud83c\udf89 \/ \" \\", "flag": true, "nothing": null}
                """#)
        },
        .request(.updateGoals) { GoldenFixtures.goalsUpdate },
        .request(.updateRecentFoods) { UpdateRecentFoodsBody(foods: GoldenFixtures.foods) },
        .request(.setTrackingMode) { SetTrackingModeBody(mode: "mindful") },
        // TenX
        .request(.createGoal) { CreateGoalBody(title: GoldenFixtures.trickyTitle) },
        .request(.archiveGoal) { GoalReferenceBody(goalId: try world.archivedGoalID) },
        .request(.unarchiveGoal) { GoalReferenceBody(goalId: try world.archivedGoalID) },
        .request(.completeOnboarding) { EmptyBody() },
        .request(.createDayEntry) { CreateDayEntryBody(focuses: try world.tenXTodayDrafts) },
        .request(.toggleFocus) { ToggleFocusBody(focusId: try world.toggledFocusID) },
        // Stress Monitor
        .request(.recordStressMeasurement) { GoldenFixtures.stressInput },
        .request(.recordStressMeasurement, "level-only") { StressMeasurementInput(stressLevel: 38) },
        .request(.updateWidget) { EmptyBody() },
        // Jitter
        .request(.startDrink) { EmptyBody() },
        .request(.completeDrink) { CompleteDrinkBody(sessionId: try world.drinkSessionID) },
        .request(.updateJitterScores) { GoldenFixtures.jitterScores },
        // Settings, sync, queries
        .request(.setTimeZone) { SetTimeZoneBody(timeZone: GoldenFixtures.newYork) },
        .request(.registerWidgetPushToken) {
            RegisterWidgetPushTokenBody(
                token: GoldenFixtures.pushTokens.tokens[0].token, environment: "production", kinds: ["TensionCheckWidget", "JitterWidget"],
                replaces: "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff")
        },
        .request(.registerWidgetPushToken, "first") {
            RegisterWidgetPushTokenBody(token: GoldenFixtures.pushTokens.tokens[1].token, environment: "sandbox", kinds: ["StressMonitorWidget"])
        },
        .request(.removeWidgetPushToken) { RemoveWidgetPushTokenBody(token: GoldenFixtures.pushTokens.tokens[1].token) },
        .request(.appForeground) { EmptyBody() },
        .request(.acknowledgeRecords) { AcknowledgeRecordsBody(records: try world.pendingRecords.map(\.acknowledgement)) },
        .request(.pendingUsersRequest, user: nil) { EmptyBody() },
        .request(.syncRequest, "widgetctl") { try widgetctlBody("{}") },
        .request(.syncStatusRequest, user: nil) { EmptyBody() },
        .request(.timelineRequest) { TimelineRequestBody(kind: .jitter) },
        .request(.timelineRequest, "widgetctl") { JSONValue.object(["kind": .string(WidgetKind.stressMonitor.rawValue)]) },
        .request(.snapshotRequest, user: nil) { SnapshotRequestBody(prefix: "state.") },
        .request(.pendingRecordsRequest) { EmptyBody() },
        .request(.ping, user: nil) { EmptyBody() },
        .request(.ping, "widgetctl", user: nil) { JSONValue.object([:]) },
        // Metrics
        .request(.metricSample, user: nil) { GoldenFixtures.metricSamples[4] },
        .request(.metricBatch, user: nil) { MetricBatchBody(samples: GoldenFixtures.metricSamples) },
        .request(.metricBatch, "edge-values", user: nil) { MetricBatchBody(samples: GoldenFixtures.edgeSamples) },
        .request(.metricsStatusRequest, user: nil) { EmptyBody() },
    ]

    /// Every reply type, as the services answer.
    static let replies: [GoldenWireCase] =
        WidgetApp.allCases.map { app in GoldenWireCase.reply(.stateReply, app.rawValue) { StateReplyBody(record: try world.record(of: app)) } }
        + [
            .reply(.stateReply, "tensionCheck-suggestion") {
                StateReplyBody(record: StateRecord(
                    user: user, app: .tensionCheck, version: GoldenFixtures.versions[.tensionCheck]! - 1,
                    state: .tensionCheck(try world.tensionSuggestion)))
            },
            .reply(.stateReply, "jitter-openURL") {
                StateReplyBody(
                    record: StateRecord(
                        user: user, app: .jitter, version: GoldenFixtures.completedDrinkVersion, state: .jitter(try world.jitterCompleted)),
                    openURL: try world.jitterOpenURL)
            },
            .reply(.profileReply) { UserProfile(user: user, timeZone: GoldenFixtures.newYork, version: GoldenFixtures.profileVersion) },
            .reply(.pushTokensReply) { GoldenFixtures.pushTokens },
            .reply(.pushTokensReply, "empty") { UserPushTokens(user: user, tokens: [], version: 49) },
            .reply(.pendingRecordsReply) { PendingRecordsBody(user: user, records: try world.pendingRecords) },
            .reply(.pendingRecordsReply, "empty") { PendingRecordsBody(user: user, records: []) },
            .reply(.acknowledgeReply) { AcknowledgeReplyBody(user: user, cleared: 2, kept: 1) },
            .reply(.pendingUsersReply, user: nil) { PendingUsersBody(users: ["alice", "bob", "zoë"]) },
            .reply(.pendingUsersReply, "empty", user: nil) { PendingUsersBody(users: []) },
            .reply(.snapshotReply, user: nil) {
                SnapshotBody(
                    epoch: GoldenFixtures.epoch, sequence: GoldenFixtures.completedDrinkVersion, states: try world.records,
                    profiles: [
                        UserProfile(user: user, timeZone: GoldenFixtures.newYork, version: GoldenFixtures.profileVersion),
                        UserProfile(user: "zoë", timeZone: "Europe/Paris", version: 12),
                    ])
            },
            .reply(.snapshotReply, "push-tokens", user: nil) {
                SnapshotBody(epoch: GoldenFixtures.epoch, sequence: 48, states: [], profiles: [], pushTokens: [GoldenFixtures.pushTokens])
            },
            .reply(.snapshotReply, "empty", user: nil) { SnapshotBody(epoch: GoldenFixtures.epoch, sequence: 0, states: []) },
            .timelineReply(TimelineSpec(kind: .tensionCheck, variant: .current, zone: GoldenFixtures.newYork)),
            .timelineReply(TimelineSpec(kind: .stressMonitor, variant: .current, zone: GoldenFixtures.newYork)),
            .timelineSnapshotReply(
                [
                    TimelineSpec(kind: .tensionCheck, variant: .current, zone: GoldenFixtures.newYork),
                    TimelineSpec(kind: .tensionCheck, variant: .suggestion, zone: GoldenFixtures.utc),
                ], sequence: 89),
            .reply(.pong, user: nil) { EmptyBody() },
            .error(
                nil, inReplyTo: GoldenFixtures.requestID, user: user, code: .invalidLevel,
                message: "tension level 4 is not one of [0, 3, 5, 7, 10]"),
            .error("bad-frames", inReplyTo: nil, user: nil, code: .badFrames, message: "expected exactly one payload frame, got 2"),
            .error("escapes", inReplyTo: GoldenFixtures.requestID, user: user, code: .internalError, message: GoldenFixtures.trickyText),
            .error(
                "wrong-shard", inReplyTo: GoldenFixtures.requestID, user: user, code: .wrongShard,
                message: "\(user) is in slot \(UserSlot(user: user).index), owned by shard b at tcp://10.0.0.2:5560: send it there",
                redirect: ShardRedirect(slot: UserSlot(user: user), shard: "b", endpoint: "tcp://10.0.0.2:5560")),
            .error(
                "wrong-shard-moving", inReplyTo: GoldenFixtures.requestID, user: user, code: .wrongShard,
                message: "\(user) is in slot \(UserSlot(user: user).index), which is moving between shards: send it again shortly",
                redirect: ShardRedirect(slot: UserSlot(user: user), shard: nil, endpoint: nil)),
            .reply(.syncReply) { syncResult },
            .reply(.syncReply, "failures") {
                SyncResult(
                    user: user, startedAt: GoldenFixtures.at(-0.25), durationMilliseconds: 1_234.5, pushed: 1, keptPending: 1,
                    failures: [
                        SyncFailure(
                            collection: "food_logs", id: try world.pendingRecords[2].record.id,
                            error: #"ERROR: duplicate key value violates unique constraint "food_logs_pkey""#),
                        SyncFailure(error: "connection refused (127.0.0.1:5432)\n\tretrying"),
                    ],
                    nextAttemptAt: GoldenFixtures.at(30.5))
            },
            .reply(.syncStatusReply, user: nil) {
                SyncStatusBody(results: [
                    syncResult,
                    SyncResult(user: "bob", startedAt: GoldenFixtures.at(-3_600), durationMilliseconds: 2.0, pushed: 0, failures: []),
                ])
            },
            .reply(.syncStatusReply, "edge-values", user: nil) { SyncStatusBody(results: edgeSyncResults) },
            .reply(.syncStatusReply, "empty", user: nil) { SyncStatusBody(results: []) },
            .reply(.metricsSnapshotReply, user: nil) {
                MetricsSnapshotBody(
                    epoch: GoldenFixtures.epoch, sequence: GoldenFixtures.metricsVersion,
                    aggregates: [
                        MetricsRecord(user: user, version: GoldenFixtures.metricsVersion, aggregate: try world.metrics),
                        MetricsRecord(
                            user: "bob", version: 3,
                            aggregate: MetricsAggregate(latestStress: StressMeasurement(stressLevel: 12, measuredAt: GoldenFixtures.at(-518_400)))),
                        MetricsRecord(user: "zoë", version: 5, aggregate: .empty),
                    ])
            },
            .reply(.metricsStatusReply, user: nil) {
                MetricsStatusBody(
                    accepted: 1_234, duplicates: 5,
                    rejectedSamples: ["measurement_too_old": 2, "invalid_hrv": 3, "malformed_sample": 1, "unknown_kind": 1],
                    rejectedMessages: ["payload_too_large": 1, "bad_json": 4], sequence: GoldenFixtures.metricsVersion, users: 2)
            },
            .reply(.metricsStatusReply, "empty", user: nil) { MetricsStatusBody() },
        ]

    /// Every event type, as the publishers send them.
    static let events: [GoldenWireCase] =
        WidgetApp.allCases.map { app in
            GoldenWireCase.event(.stateChanged, app.rawValue) {
                StateChangedBody(
                    epoch: GoldenFixtures.epoch, sequence: GoldenFixtures.versions[app]!, causedBy: GoldenFixtures.requestID,
                    record: try world.record(of: app))
            }
        }
        + [
            .event(.stateChanged, "traced", traceparent: GoldenFixtures.eventTraceparent) {
                StateChangedBody(
                    epoch: GoldenFixtures.epoch, sequence: GoldenFixtures.versions[.tensionCheck]!, causedBy: GoldenFixtures.requestID,
                    record: try world.record(of: .tensionCheck))
            },
            .event(.profileChanged) {
                ProfileChangedBody(
                    epoch: GoldenFixtures.epoch, sequence: GoldenFixtures.profileVersion, causedBy: GoldenFixtures.requestID,
                    profile: UserProfile(user: user, timeZone: GoldenFixtures.newYork, version: GoldenFixtures.profileVersion))
            },
            .event(.pushTokensChanged) {
                PushTokensChangedBody(
                    epoch: GoldenFixtures.epoch, sequence: GoldenFixtures.pushTokens.version, causedBy: GoldenFixtures.requestID,
                    pushTokens: GoldenFixtures.pushTokens)
            },
            .event(.appForegrounded) { AppForegroundedBody(epoch: GoldenFixtures.epoch, sequence: 47, causedBy: GoldenFixtures.requestID, user: user) },
            .event(.syncCompleted) { SyncCompletedBody(epoch: GoldenFixtures.epoch, sequence: 9, result: syncResult) },
            .event(.metricsChanged) {
                MetricsChangedBody(
                    epoch: GoldenFixtures.epoch, sequence: GoldenFixtures.metricsVersion, causedBy: GoldenFixtures.batchID, user: user, aggregate: try world.metrics)
            },
            .timelineChanged(
                TimelineSpec(kind: .stressMonitor, variant: .current, zone: GoldenFixtures.newYork), sequence: 88,
                causedBy: GoldenFixtures.batchID),
            .timelineChanged(TimelineSpec(kind: .tenXHome, variant: .current, zone: GoldenFixtures.utc), sequence: 89, causedBy: nil),
            .event(.heartbeat, user: nil) { HeartbeatBody(publisher: "intent-handler", epoch: GoldenFixtures.epoch, sequence: 47) },
            .event(.heartbeat, "max-sequence", user: nil) { HeartbeatBody(publisher: "metrics-ingest", epoch: "ffffffffffffffff", sequence: .max) },
            .event(.heartbeat, "follows", user: nil) {
                HeartbeatBody(
                    publisher: "timeline-service", epoch: "2f7b0c19d4e6a853", sequence: 89,
                    follows: [
                        FollowedPosition(publisher: "intent-handler", epoch: GoldenFixtures.epoch, sequence: 47),
                        FollowedPosition(publisher: "metrics-ingest", epoch: "ffffffffffffffff", sequence: GoldenFixtures.metricsVersion),
                    ])
            },
        ]

    private static let syncResult = SyncResult(
        user: user, startedAt: GoldenFixtures.at(-0.25), durationMilliseconds: 12.75, pushed: 3, failures: [])

    /// Sync results carrying the edge dates, doubles and integers.
    private static let edgeSyncResults: [SyncResult] = GoldenFixtures.edgeDates.enumerated().map { index, date in
        let doubles = GoldenFixtures.edgeDoubles
        return SyncResult(
            user: index == 0 ? "zoë" : "user-\(index)", startedAt: date, durationMilliseconds: doubles[index % doubles.count],
            pushed: index == 0 ? .max : index, keptPending: index == 0 ? .min : -index,
            failures: index.isMultiple(of: 2)
                ? [] : [SyncFailure(collection: index == 1 ? "drink_sessions" : nil, id: index == 1 ? "d-1" : nil, error: GoldenFixtures.trickyText)],
            nextAttemptAt: index.isMultiple(of: 3) ? Array(GoldenFixtures.edgeDates.reversed())[index] : nil)
    }
}
