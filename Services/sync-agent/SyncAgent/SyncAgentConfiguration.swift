import BusRuntime
import Foundation
import PostgresStorage
import ServiceRuntime
import ServiceSupport
import WidgetBusProtocol

/// Everything sync-agent reads from the environment (each setting is listed by `--help`).
public struct SyncAgentConfiguration: Sendable {
    enum Target: Sendable {
        /// The embedded default: `sync-target.sqlite` under `WIDGETBUS_DATA_DIR`.
        case sqlite(path: String)
        case postgres(PostgresURL)
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

    /// What `--help` lists, in order.
    public static let settings: [EnvironmentSetting] = [
        BusEndpoint.sync.setting, BusEndpoint.syncEvents.setting, BusEndpoint.intents.setting,
        BusEndpoint.stateEvents.setting, databaseURL, .dataDirectory, interval, backoffBase, backoffCap, concurrency,
        databaseTimeout,
    ] + BusBinding.settings + BusSecurity.settings + ServiceMain.settings + [.logLevel]

    var bus: SyncBus.Configuration
    var target: Target
    var sweepInterval: Duration
    var backoff: RetryBackoff
    var concurrency: Int
    var databaseTimeout: Duration

    public init(environment: [String: String]) throws {
        bus = SyncBus.Configuration(
            syncEndpoint: BusEndpoint.sync.resolve(in: environment),
            syncEventsEndpoint: BusEndpoint.syncEvents.resolve(in: environment),
            intentsEndpoint: BusEndpoint.intents.resolve(in: environment),
            stateEventsEndpoint: BusEndpoint.stateEvents.resolve(in: environment),
            binding: try BusBinding(environment: environment))
        let url = environment[Self.databaseURL.variable]?.trimmingCharacters(in: .whitespaces) ?? ""
        if url.isEmpty {
            let directory = EnvironmentSetting.dataDirectory.resolve(in: environment)
            target = .sqlite(path: (directory as NSString).appendingPathComponent("sync-target.sqlite"))
        } else {
            do {
                target = .postgres(try PostgresURL(url))
            } catch {
                throw InvalidSetting("\(Self.databaseURL.variable): \(error)")
            }
        }
        let year = 86_400.0 * 365
        sweepInterval = try Self.interval.seconds(in: environment, range: 0.01...year)
        backoff = RetryBackoff(
            base: try Self.backoffBase.seconds(in: environment, range: 0...year),
            cap: try Self.backoffCap.seconds(in: environment, range: 0...year))
        concurrency = try Self.concurrency.integer(in: environment, range: 1...256)
        databaseTimeout = try Self.databaseTimeout.seconds(in: environment, range: 0.1...year)
    }
}
