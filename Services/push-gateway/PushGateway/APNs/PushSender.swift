import Foundation
import Logging
import WidgetBusProtocol

/// One WidgetKit push to send: to a token on its APNs, to be given up once it no longer helps.
public struct OutgoingPush: Sendable, Equatable {
    public var token: String
    public var environment: APNsEnvironment
    /// When the widgets it wakes reload by themselves anyway (nil: never); APNs stores a push
    /// for an offline device until then, at most a day.
    public var helpsUntil: Date?

    public init(token: String, environment: APNsEnvironment, helpsUntil: Date?) {
        self.token = token
        self.environment = environment
        self.helpsUntil = helpsUntil
    }
}

/// What became of a push, by what APNs answered.
public enum PushOutcome: Sendable, Equatable {
    /// APNs accepted it (200).
    case delivered
    /// The token is no longer valid (`BadDeviceToken`, 410 `Unregistered`): it is removed, and
    /// nothing more is sent to it.
    case tokenGone(reason: String)
    /// Not delivered for now (429, 5xx, an expired provider token, no connection): sent again
    /// after a wait (``PushRetryPolicy``) that heeds `after`, the seconds APNs asked for
    /// (`Retry-After`), if it did.
    case retry(reason: String, after: TimeInterval?)
    /// The token refused for good for `topic`, without being gone (``APNsClient/tokenRefusals``:
    /// `DeviceTokenNotForTopic`): nothing more is sent to it for that topic, but the users who
    /// registered it keep it; it is theirs, and intent-handler's to remove.
    case tokenRefused(reason: String, topic: String)
    /// Refused for good for another reason (another 4xx: a wrong topic, a bad request): logged,
    /// counted, not sent again.
    case refused(status: Int, reason: String)
    /// Logged instead of sent (``DryRunSender``).
    case dryRun
}

/// Where pushes go: APNs, or the log.
public protocol PushSender: Sendable {
    /// The `apns-topic` of the pushes it sends; nil when it sends none.
    var topic: String? { get }
    /// Sends `push` and says what came of it. Returns promptly once its task is cancelled (a
    /// retry is the outcome then): the service's stop waits for every send.
    func send(_ push: OutgoingPush) async -> PushOutcome
}

/// Logs each push instead of sending it: the default until APNs credentials are configured, and
/// the local runner's.
public struct DryRunSender: PushSender {
    let logger: Logger

    public init(logger: Logger) {
        self.logger = logger
    }

    public var topic: String? { nil }

    public func send(_ push: OutgoingPush) async -> PushOutcome {
        logger.info(
            "widget push (dry run, not sent)",
            metadata: PushGatewayService.metadata(push.token, ["widgetbus.apns_environment": "\(push.environment.rawValue)"]))
        return .dryRun
    }
}
