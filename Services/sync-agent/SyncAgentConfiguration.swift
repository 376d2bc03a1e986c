import Foundation
import ServiceSupport
import WidgetBusProtocol

/// Everything sync-agent reads from the environment (each setting is listed by `--help`).
struct SyncAgentConfiguration: Sendable {
    enum Target: Sendable {
        /// The embedded default: `sync-target.sqlite` under `WIDGETBUS_DATA_DIR`.
        case sqlite(path: String)
        case postgres(PostgresURL)
    }

    struct Invalid: Error, CustomStringConvertible {
        let description: String
    }

    static let databaseURL = EnvironmentSetting(
        variable: "WIDGETBUS_SYNC_DATABASE_URL", defaultValue: "none: SQLite file sync-target.sqlite in WIDGETBUS_DATA_DIR",
        purpose: "sync target: postgres:// or postgresql:// URL (Supabase; sslmode, sslrootcert)")
    static let interval = EnvironmentSetting(
        variable: "WIDGETBUS_SYNC_INTERVAL", defaultValue: "60",
        purpose: "seconds between sweeps over every user with pending records")
    static let backoffBase = EnvironmentSetting(
        variable: "WIDGETBUS_SYNC_BACKOFF_BASE", defaultValue: "1",
        purpose: "seconds: retry delay bound after a first failed pass (doubles per failure, full jitter)")
    static let backoffCap = EnvironmentSetting(
        variable: "WIDGETBUS_SYNC_BACKOFF_CAP", defaultValue: "300", purpose: "seconds: largest retry delay bound")
    static let concurrency = EnvironmentSetting(
        variable: "WIDGETBUS_SYNC_CONCURRENCY", defaultValue: "4",
        purpose: "users synced at the same time (and PostgreSQL connections)")
    static let databaseTimeout = EnvironmentSetting(
        variable: "WIDGETBUS_SYNC_DATABASE_TIMEOUT", defaultValue: "10",
        purpose: "seconds a database step (connect, upsert) may take before the pass fails")
    static let testPauseBeforeAcknowledgement = EnvironmentSetting(
        variable: "WIDGETBUS_SYNC_TEST_PAUSE_BEFORE_ACK_MS", defaultValue: "0",
        purpose: "TEST HOOK, never in production: milliseconds to sleep between upsert and acknowledgement")

    /// What `--help` lists, in order.
    static let settings: [EnvironmentSetting] = [
        BusEndpoint.sync.setting, BusEndpoint.syncEvents.setting, BusEndpoint.intents.setting,
        BusEndpoint.stateEvents.setting, databaseURL, .dataDirectory, interval, backoffBase, backoffCap, concurrency,
        databaseTimeout, .logLevel, testPauseBeforeAcknowledgement,
    ]

    var bus: SyncBus.Configuration
    var target: Target
    var sweepInterval: Duration
    var backoff: SyncBackoff
    var concurrency: Int
    var databaseTimeout: Duration
    var pauseBeforeAcknowledgement: Duration?

    init(environment: [String: String]) throws {
        bus = SyncBus.Configuration(
            syncEndpoint: BusEndpoint.sync.resolve(in: environment),
            syncEventsEndpoint: BusEndpoint.syncEvents.resolve(in: environment),
            intentsEndpoint: BusEndpoint.intents.resolve(in: environment),
            stateEventsEndpoint: BusEndpoint.stateEvents.resolve(in: environment))
        let url = environment[Self.databaseURL.variable]?.trimmingCharacters(in: .whitespaces) ?? ""
        if url.isEmpty {
            let directory = EnvironmentSetting.dataDirectory.resolve(in: environment)
            target = .sqlite(path: (directory as NSString).appendingPathComponent("sync-target.sqlite"))
        } else {
            do {
                target = .postgres(try PostgresURL(url))
            } catch {
                throw Invalid(description: "\(Self.databaseURL.variable): \(error)")
            }
        }
        sweepInterval = try Self.seconds(Self.interval, environment, minimum: 0.01)
        backoff = SyncBackoff(
            base: try Self.seconds(Self.backoffBase, environment, minimum: 0),
            cap: try Self.seconds(Self.backoffCap, environment, minimum: 0))
        guard let concurrency = Int(Self.concurrency.resolve(in: environment)), (1...256).contains(concurrency) else {
            throw Invalid(description: "\(Self.concurrency.variable) must be an integer from 1 to 256")
        }
        self.concurrency = concurrency
        databaseTimeout = try Self.seconds(Self.databaseTimeout, environment, minimum: 0.1)
        guard let pause = Int(Self.testPauseBeforeAcknowledgement.resolve(in: environment)), pause >= 0 else {
            throw Invalid(description: "\(Self.testPauseBeforeAcknowledgement.variable) must be a whole number of milliseconds")
        }
        pauseBeforeAcknowledgement = pause > 0 ? .milliseconds(pause) : nil
    }

    private static func seconds(_ setting: EnvironmentSetting, _ environment: [String: String], minimum: Double) throws -> Duration {
        let text = setting.resolve(in: environment)
        guard let value = Double(text), value.isFinite, value >= minimum, value <= 86_400 * 365 else {
            throw Invalid(description: "\(setting.variable) must be a number of seconds ≥ \(minimum), got \(text)")
        }
        return .milliseconds(Int64((value * 1000).rounded()))
    }
}
