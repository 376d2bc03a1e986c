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
        environment[variable].flatMap { $0.isEmpty ? nil : $0 } ?? defaultValue
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

    /// Where services keep durable state.
    public static let dataDirectory = EnvironmentSetting(
        variable: "WIDGETBUS_DATA_DIR", defaultValue: "./.widgetbus",
        purpose: "directory for durable state (SQLite files)")
    /// swift-log level: trace, debug, info, notice, warning, error, critical.
    public static let logLevel = EnvironmentSetting(
        variable: "WIDGETBUS_LOG_LEVEL", defaultValue: "info", purpose: "log level (trace … critical)")

    /// The `--help` section listing `settings`, so each executable documents what it reads.
    public static func helpText(_ settings: [EnvironmentSetting]) -> String {
        let width = settings.map(\.variable.count).max() ?? 0
        let lines = settings.map { setting in
            "  \(setting.variable.padded(toWidth: width + 2))\(setting.purpose) (default: \(setting.defaultValue))"
        }
        return "Environment:\n" + lines.joined(separator: "\n")
    }
}

/// A setting whose value is refused: the service stops at start with this message.
public struct InvalidSetting: Error, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}

extension BusEndpoint {
    /// This endpoint as a setting, for help text and resolution.
    public var setting: EnvironmentSetting { EnvironmentSetting(self) }
}
