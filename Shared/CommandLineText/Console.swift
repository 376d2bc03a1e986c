import Foundation

/// How the command-line tools write: each line unbuffered, so a pipe sees it at once, and errors
/// on stderr prefixed with the tool's name, as Unix tools do.
public enum Console {
    /// Prints `text` as one line on stdout.
    public static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// Prints `text` as one line on stderr, after the tool's name.
    public static func error(_ text: String) {
        FileHandle.standardError.write(Data((ProcessInfo.processInfo.processName + ": " + text + "\n").utf8))
    }
}
