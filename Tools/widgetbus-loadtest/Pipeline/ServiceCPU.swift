import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The CPU time a step cost each service: user + system seconds of its process over the step
/// (load and grace period), and per intent sent. Where the cost of the pipeline goes.
struct ServiceCPUUsage: Codable, Sendable, Equatable {
    var seconds: Double
    var millisecondsPerIntent: Double
}

/// The service processes a run can read the CPU time of: those named with `--pid NAME=PID`, and
/// every service the local runner started (its `run/<service>.pid` files under
/// `WIDGETBUS_LOCAL_DIR`, which `eval "$(deploy/local/widgetbus env)"` sets). Read from
/// `/proc/<pid>/stat`, so on Linux only; elsewhere no figures are reported.
struct ServiceProcesses: Sendable {
    struct BadPID: Error, CustomStringConvertible {
        let argument: String
        var description: String { "--pid takes NAME=PID (e.g. intent-handler=4242), not \(argument)" }
    }

    let pids: [String: Int32]

    init(arguments: [String], localDirectory: String?) throws {
        var pids: [String: Int32] = [:]
        if let localDirectory {
            let run = URL(fileURLWithPath: localDirectory).appendingPathComponent("run")
            let files = (try? FileManager.default.contentsOfDirectory(atPath: run.path)) ?? []
            for file in files where file.hasSuffix(".pid") {
                let text = (try? String(contentsOf: run.appendingPathComponent(file), encoding: .utf8)) ?? ""
                if let pid = text.split(separator: "\n").first.flatMap({ Int32($0) }) {
                    pids[String(file.dropLast(4))] = pid
                }
            }
        }
        for argument in arguments {
            let parts = argument.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, !parts[0].isEmpty, let pid = Int32(parts[1]), pid > 0 else { throw BadPID(argument: argument) }
            pids[String(parts[0])] = pid
        }
        self.pids = pids
    }

    /// CPU seconds used so far by each process that is still running.
    func cpuSeconds() -> [String: Double] {
        pids.compactMapValues(Self.cpuSeconds(of:))
    }

    /// The usage between two readings, for the processes in both.
    static func usage(from before: [String: Double], to after: [String: Double], intents: Int) -> [String: ServiceCPUUsage] {
        after.reduce(into: [:]) { usage, entry in
            guard let start = before[entry.key] else { return }
            let seconds = max(0, entry.value - start)
            usage[entry.key] = ServiceCPUUsage(seconds: seconds, millisecondsPerIntent: seconds * 1_000 / Double(max(1, intents)))
        }
    }

    /// utime + stime of `/proc/<pid>/stat` (fields 14 and 15, counted after the parenthesised
    /// command name, which may itself hold spaces).
    private static func cpuSeconds(of pid: Int32) -> Double? {
        #if os(Linux)
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
        #else
        return nil
        #endif
    }
}
