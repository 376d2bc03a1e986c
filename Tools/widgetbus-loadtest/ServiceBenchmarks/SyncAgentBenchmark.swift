import ArgumentParser
import BusRuntime
import CommandLineText
import Foundation
import ServiceSupport
import WidgetBusProtocol

/// The sync benchmark's two halves (scripts/bench-sync.sh runs them around starting sync-agent):
/// `seed` creates pending records fast through one Lazy Pirate client, `measure` waits until
/// sync-agent has cleared them and computes the records synced per second from its results.
struct SyncAgentBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync-agent",
        abstract: "Benchmark sync-agent: seed pending records, then measure how fast a sweep syncs them.",
        subcommands: [Seed.self, Measure.self]
    )

    struct Seed: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create pending Tension Check records: RecordTensionIntent for each user, in turn.")

        @Option(help: "Users to create records for.")
        var users: Int = 1_000

        @Option(help: "Records per user.")
        var records: Int = 20

        @Option(help: "User ids are <prefix>-<n>.")
        var prefix: String = "bench-sync"

        func run() throws {
            let codec = WireCodec()
            let client = RequestClient(
                context: try ZMQContextHolder.shared, endpoint: BusEndpoint.intents.resolve(in: ProcessInfo.processInfo.environment),
                timeoutMilliseconds: 5_000, attempts: 3, security: nil)
            let started = ContinuousClock.now
            var errors = 0
            for round in 0..<records {
                for index in 0..<users {
                    let envelope = Envelope(
                        type: MessageType.recordTension.rawValue, user: "\(prefix)-\(index)",
                        body: RecordTensionBody(level: [0, 3, 5][round % 3]))
                    let reply = try client.request(try codec.encode(envelope))
                    if case .failure = try ReplyDecoding.decode(reply, as: StateRecord.self, codec: codec) { errors += 1 }
                }
            }
            let seconds = (ContinuousClock.now - started).asSeconds
            Console.line(String(format: "seeded %d records for %d users in %.2f s (%.0f intents/s), %d errors",
                             users * records, users, seconds, Double(users * records) / seconds, errors))
            if errors > 0 { throw ExitCode(1) }
        }
    }

    struct Measure: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Wait until no <prefix>- user has pending records, then report sync-agent's throughput.")

        @Option(help: "User ids are <prefix>-<n>.")
        var prefix: String = "bench-sync"

        @Option(help: "Seconds to wait for the sync to finish.")
        var timeout: Double = 600

        @Option(help: "A label for the figure (e.g. the target).")
        var label: String = "sync"

        @Option(help: "Write the result as JSON to this file.")
        var json: String?

        struct Result: Codable {
            var label: String
            var users: Int
            var records: Int
            var failures: Int
            var seconds: Double
            var recordsPerSecond: Double
            var usersPerSecond: Double
            var passP50Milliseconds: Double
            var passMaxMilliseconds: Double
        }

        func run() throws {
            let codec = WireCodec()
            let environment = ProcessInfo.processInfo.environment
            let context = try ZMQContextHolder.shared
            let intents = RequestClient(context: context, endpoint: BusEndpoint.intents.resolve(in: environment), security: nil)
            let deadline = Date().addingTimeInterval(timeout)
            while true {
                let envelope = Envelope(type: MessageType.pendingUsersRequest.rawValue, body: EmptyBody())
                let reply = try intents.request(try codec.encode(envelope))
                let users = try codec.decode(Envelope<PendingUsersBody>.self, from: reply).body.users
                if !users.contains(where: { $0.hasPrefix(prefix + "-") }) { break }
                guard Date() < deadline else {
                    Console.error("timed out: users still pending after \(timeout) s")
                    throw ExitCode(1)
                }
                usleep(100_000)
            }
            let agent = RequestClient(
                context: context, endpoint: BusEndpoint.sync.resolve(in: environment), timeoutMilliseconds: 10_000, attempts: 2, security: nil)
            let request = Envelope(type: MessageType.syncStatusRequest.rawValue, body: EmptyBody())
            let status = try codec.decode(Envelope<SyncStatusBody>.self, from: try agent.request(try codec.encode(request))).body
            let results = status.results.filter { $0.user.hasPrefix(prefix + "-") && $0.pushed > 0 }
            guard let first = results.map(\.startedAt).min(),
                let last = results.map({ $0.startedAt.addingTimeInterval($0.durationMilliseconds / 1000) }).max()
            else {
                Console.error("sync-agent reports no passes for \(prefix)- users")
                throw ExitCode(1)
            }
            let records = results.reduce(0) { $0 + $1.pushed }
            let seconds = last.timeIntervalSince(first)
            let durations = results.map(\.durationMilliseconds).sorted()
            let result = Result(
                label: label, users: results.count, records: records,
                failures: status.results.filter { $0.user.hasPrefix(prefix + "-") }.reduce(0) { $0 + $1.failures.count },
                seconds: seconds, recordsPerSecond: Double(records) / seconds, usersPerSecond: Double(results.count) / seconds,
                passP50Milliseconds: durations[durations.count / 2], passMaxMilliseconds: durations.last!)
            Console.line(label + ": " + String(
                format: "%d records of %d users synced in %.2f s = %.0f records/s (%.0f users/s; pass p50 %.1f ms, max %.1f ms), %d failures",
                records, result.users, seconds, result.recordsPerSecond, result.usersPerSecond,
                result.passP50Milliseconds, result.passMaxMilliseconds, result.failures))
            if let json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                try encoder.encode(result).write(to: URL(fileURLWithPath: json))
            }
            if result.failures > 0 { throw ExitCode(1) }
        }
    }
}
