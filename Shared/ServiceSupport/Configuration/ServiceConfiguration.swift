import CommandLineText
import Foundation
import WidgetBusProtocol

/// A setting read from the environment, with its default and a line for `--help`.
public struct EnvironmentSetting: Sendable, Hashable {
    public let variable: String
    public let defaultValue: String
    public let purpose: String

    public init(variable: String, defaultValue: String, purpose: String) {
        self.variable = variable
        self.defaultValue = defaultValue
        self.purpose = purpose
    }

    public init(_ endpoint: BusEndpoint) {
        self.init(variable: endpoint.variable, defaultValue: endpoint.defaultValue, purpose: endpoint.purpose)
    }

    public func resolve(in environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        value(in: environment) ?? defaultValue
    }

    /// The setting's value when it is set and not empty: for a default that is not a constant.
    public func value(in environment: [String: String]) -> String? {
        environment[variable].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The setting as a whole number within `range`; anything else stops the service at start.
    public func integer(in environment: [String: String], range: ClosedRange<Int>) throws(InvalidSetting) -> Int {
        let text = resolve(in: environment)
        guard let value = Int(text), range.contains(value) else {
            throw InvalidSetting("\(variable) must be a whole number in \(range.lowerBound)…\(range.upperBound), got '\(text)'")
        }
        return value
    }

    /// The setting as a number of seconds within `range` (fractions allowed), to the millisecond;
    /// anything else stops the service at start.
    public func seconds(in environment: [String: String], range: ClosedRange<Double>) throws(InvalidSetting) -> Duration {
        let text = resolve(in: environment)
        guard let value = Double(text), value.isFinite, range.contains(value) else {
            throw InvalidSetting("\(variable) must be a number of seconds in \(range.lowerBound)…\(range.upperBound), got '\(text)'")
        }
        return .milliseconds(Int64((value * 1000).rounded()))
    }

    /// `text`, this setting's value, as `host:port` with a port in 0…65535 and a host without `:`;
    /// anything else stops the service at start, naming the variable and `example`.
    public func hostAndPort(_ text: String, example: String) throws(InvalidSetting) -> (host: String, port: Int) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65_535).contains(port),
            case let host = String(text[..<colon]), !host.isEmpty, !host.contains(":")
        else { throw InvalidSetting("\(variable) must be host:port, such as \(example), got '\(text)'") }
        return (host, port)
    }

    /// The setting as a switch: `0` or `1`; anything else stops the service at start.
    public func flag(in environment: [String: String]) throws(InvalidSetting) -> Bool {
        switch resolve(in: environment) {
        case "0": return false
        case "1": return true
        case let text: throw InvalidSetting("\(variable) must be 0 or 1, got '\(text)'")
        }
    }

    /// Where services keep durable state.
    public static let dataDirectory = EnvironmentSetting(
        variable: "WIDGETBUS_DATA_DIR", defaultValue: "./.widgetbus",
        purpose: "directory for durable state (SQLite files)")
    /// The root of the snapshot files (``SnapshotPath``): written by snapshot-writer, read by
    /// widgetctl, app-gateway and widgets.
    public static let snapshotDirectory = EnvironmentSetting(
        variable: "WIDGETBUS_SNAPSHOT_DIR", defaultValue: "./.widgetbus/snapshots",
        purpose: "directory of the per-user widget snapshot files (<user>/<WidgetKind>.json)")
    /// swift-log level: trace, debug, info, notice, warning, error, critical.
    public static let logLevel = EnvironmentSetting(
        variable: "WIDGETBUS_LOG_LEVEL", defaultValue: "info", purpose: "log level (trace … critical)")

    /// The `--help` section listing `settings`, so each executable documents what it reads.
    public static func helpText(_ settings: [EnvironmentSetting]) -> String {
        var seen: Set<String> = []
        let settings = settings.filter { seen.insert($0.variable).inserted }
        let width = settings.map(\.variable.count).max() ?? 0
        let lines = settings.map { setting in
            "  \(setting.variable.padded(toWidth: width + 2))\(setting.purpose) (default: \(setting.defaultValue))"
        }
        return "Environment:\n" + lines.joined(separator: "\n") + "\n\n" + InvalidSetting.exitStatusHelp
    }
}

/// A setting whose value is refused: the executable stops at start with this message.
public struct InvalidSetting: Error, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }

    /// The exit status of every WidgetBus executable that refuses its configuration: 78,
    /// `EX_CONFIG` of sysexits(3), apart from a crash or a failed request (1), so a supervisor or
    /// a script can tell a setting to fix from a fault.
    public static let exitStatus: Int32 = 78

    /// What `--help` says about it.
    static let exitStatusHelp = "Exit status: \(exitStatus) when a setting is refused at start, with one line saying which and why."

    /// Ends the process as every executable does on a refused setting: this one line on standard
    /// error, prefixed with the executable's name, and ``exitStatus``.
    public func exitProcess(executable: String) -> Never {
        FileHandle.standardError.write(Data("\(executable): \(description)\n".utf8))
        exit(Self.exitStatus)
    }
}

extension BusEndpoint {
    /// This endpoint as a setting, for help text and resolution.
    public var setting: EnvironmentSetting { EnvironmentSetting(self) }
}
