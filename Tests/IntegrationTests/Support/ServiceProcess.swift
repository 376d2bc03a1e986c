import Foundation

/// One of the project's executables, started as a real process with its stderr in a log file.
final class ServiceProcess {
    let name: String
    let logURL: URL
    let outputURL: URL
    private let process = Process()

    init(name: String, executable: URL, environment: [String: String], logDirectory: URL, arguments: [String] = []) throws {
        self.name = name
        logURL = logDirectory.appendingPathComponent("\(name)-\(UUID().uuidString.prefix(6)).log")
        outputURL = logURL.deletingPathExtension().appendingPathExtension("out")
        _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        process.standardOutput = try FileHandle(forWritingTo: outputURL)
        process.standardError = try FileHandle(forWritingTo: logURL)
        try process.run()
    }

    var isRunning: Bool { process.isRunning }
    var pid: Int32 { process.processIdentifier }

    /// SIGTERM, then waits for the exit; returns the exit status (nil if it had to be killed).
    @discardableResult
    func terminate(within seconds: Double = 10) -> Int32? {
        guard process.isRunning else { return process.terminationStatus }
        process.terminate()
        if waitForExit(seconds) { return process.terminationStatus }
        kill9()
        return nil
    }

    /// SIGKILL: no chance to clean up, as in a crash.
    func kill9() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        _ = waitForExit(10)
    }

    private func waitForExit(_ seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning, Date() < deadline { usleep(10_000) }
        if !process.isRunning { process.waitUntilExit() }
        return !process.isRunning
    }

    /// What the process printed on stdout so far.
    var output: String {
        (try? String(contentsOf: outputURL, encoding: .utf8)) ?? ""
    }

    var log: String {
        (try? String(contentsOf: logURL, encoding: .utf8)) ?? ""
    }
}

/// What a finished command printed and returned.
struct CommandResult {
    var status: Int32
    var stdout: String
    var stderr: String

    var stdoutData: Data { Data(stdout.utf8) }
    var lines: [String] { stdout.split(separator: "\n").map(String.init) }
}

/// Runs a command to completion, capturing its output.
func runCommand(_ executable: URL, _ arguments: [String], environment: [String: String]) throws -> CommandResult {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    process.environment = environment
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cmd-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let out = directory.appendingPathComponent("out"), err = directory.appendingPathComponent("err")
    _ = FileManager.default.createFile(atPath: out.path, contents: nil)
    _ = FileManager.default.createFile(atPath: err.path, contents: nil)
    process.standardOutput = try FileHandle(forWritingTo: out)
    process.standardError = try FileHandle(forWritingTo: err)
    try process.run()
    process.waitUntilExit()
    return CommandResult(
        status: process.terminationStatus,
        stdout: (try? String(contentsOf: out, encoding: .utf8)) ?? "",
        stderr: (try? String(contentsOf: err, encoding: .utf8)) ?? "")
}
