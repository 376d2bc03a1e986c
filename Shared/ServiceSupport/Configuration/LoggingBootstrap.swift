import Logging

/// Structured logs on stderr for every executable, at the level `WIDGETBUS_LOG_LEVEL` names.
public enum LoggingBootstrap {
    public static func makeLogger(label: String, level: String = EnvironmentSetting.logLevel.resolve()) -> Logger {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = Logger.Level(rawValue: level) ?? .info
            return handler
        }
        return Logger(label: label)
    }
}
