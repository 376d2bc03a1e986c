import WidgetDomain

/// A stable machine-readable error code. The full list, with meanings, is in docs/PROTOCOL.md.
public struct ErrorCode: RawRepresentable, Hashable, Codable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    // Transport and envelope
    /// The payload was bigger than ``ProtocolLimits/maxPayloadBytes``.
    public static let payloadTooLarge = ErrorCode(rawValue: "payload_too_large")
    /// The request was not one frame of payload (after routing frames).
    public static let badFrames = ErrorCode(rawValue: "bad_frames")
    /// The payload is not valid UTF-8 JSON, or not a JSON object.
    public static let badJSON = ErrorCode(rawValue: "bad_json")
    /// `version` is not one this server speaks.
    public static let unsupportedVersion = ErrorCode(rawValue: "unsupported_version")
    /// `type` is not in the catalog, or not served on this endpoint.
    public static let unknownType = ErrorCode(rawValue: "unknown_type")
    /// A required envelope or body field is absent.
    public static let missingField = ErrorCode(rawValue: "missing_field")
    /// A field has the wrong JSON type or an impossible value.
    public static let invalidField = ErrorCode(rawValue: "invalid_field")
    /// `user` is empty, too long or has characters a user id may not have.
    public static let invalidUser = ErrorCode(rawValue: "invalid_user")
    /// The request id was already used by a different request (other type or user).
    public static let idReused = ErrorCode(rawValue: "id_reused")
    /// The service cannot answer yet (e.g. timeline-service before its first sync). Retry.
    public static let unavailable = ErrorCode(rawValue: "unavailable")
    /// The server failed; nothing was changed. Safe to retry with the same id.
    public static let internalError = ErrorCode(rawValue: "internal")
    /// The user's slot is owned by another intent-handler shard, which the reply's `redirect`
    /// names; nothing was changed. Resend there with the same id.
    public static let wrongShard = ErrorCode(rawValue: "wrong_shard")

    // Widget rules (RuleViolation codes raised by the domain)
    /// Tension level not one of 0, 3, 5, 7, 10.
    public static let invalidLevel = ErrorCode(rawValue: "invalid_level")
    /// MarkInterventionDone for a check-in that has no open suggestion.
    public static let unknownCheckIn = ErrorCode(rawValue: "unknown_check_in")

    // User settings
    /// `SetTimeZone` with an identifier the tz database does not hold (``UserTimeZone``).
    public static let invalidTimeZone = ErrorCode(rawValue: "invalid_time_zone")
    /// A push token that is not an even number of 32–200 hex digits (``WidgetPushToken``).
    public static let invalidPushToken = ErrorCode(rawValue: "invalid_push_token")

    /// The codes the protocol layer and the services send, before or around any widget rule.
    public static let protocolCodes: [ErrorCode] = [
        .payloadTooLarge, .badFrames, .badJSON, .unsupportedVersion, .unknownType, .missingField,
        .invalidField, .invalidUser, .idReused, .unavailable, .internalError, .wrongShard, .invalidTimeZone,
        .invalidPushToken,
    ]

    /// The codes of each app's widget rules (the domain's `RuleViolation`s), meanings in
    /// docs/WIDGETS.md. A test checks this list against every code the domain can raise.
    public static let widgetRuleCodes: [WidgetApp: [ErrorCode]] = [
        .tensionCheck: [.invalidLevel, .unknownCheckIn],
        .diet: codes(
            "invalid_nutrition", "invalid_nutrition_goal", "invalid_food_id", "invalid_food_name", "invalid_food_unit",
            "invalid_food_quantity", "invalid_food_nutrition", "duplicate_food_id", "too_many_foods",
            "invalid_tracking_mode", "unknown_widget_kind", "not_synced", "unknown_food", "daily_total_exceeded"),
        .tenX: codes(
            "empty_goal_title", "invalid_goal_title", "goal_title_too_long", "too_many_active_goals",
            "goal_storage_full", "last_active_goal", "unknown_goal", "goal_not_active", "wrong_focus_count",
            "day_already_set", "day_closed", "empty_focus_title", "invalid_focus_title", "focus_title_too_long",
            "missing_goal_link", "invalid_carried_from", "focus_not_today", "unknown_focus"),
        .stressMonitor: codes("invalid_stress_level", "invalid_hrv", "measurement_in_future", "measurement_too_old"),
        .jitter: codes(
            "invalid_score", "invalid_caffeine_level", "invalid_drink_time", "invalid_drink_name",
            "unknown_drink_session", "drink_session_expired"),
    ]

    /// Every code the services can send; docs/PROTOCOL.md documents each (a test checks it).
    public static let all: [ErrorCode] = protocolCodes + WidgetApp.allCases.flatMap { widgetRuleCodes[$0] ?? [] }

    private static func codes(_ rawValues: String...) -> [ErrorCode] {
        rawValues.map(ErrorCode.init(rawValue:))
    }
}

/// A request the protocol layer refused before any widget rule ran.
public struct ProtocolError: Error, Equatable, Sendable, CustomStringConvertible {
    public let code: ErrorCode
    public let message: String

    public init(_ code: ErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}
