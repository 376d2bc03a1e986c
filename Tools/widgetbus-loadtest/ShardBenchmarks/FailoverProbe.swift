import ArgumentParser
import BusRuntime
import CommandLineText
import Foundation
import ServiceSupport
import WidgetBusProtocol
import WidgetDomain
import ZeroMQ

/// One measurement of a shard failover, for scripts/bench-failover.sh: sends an intent for a
/// user to one shard every 10 ms — each a fresh request, not following redirects — until that
/// shard stores it, and prints when, as Unix time. The script kills the user's owner first and
/// subtracts the moment it did so.
struct FailoverProbe: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "failover-probe",
        abstract: "Wait until an intent-handler shard answers a user's intent itself; print the time it did (Unix seconds).")

    @Option(help: "The shard's intents endpoint.")
    var endpoint: String

    @Option(help: "The user whose intent is sent (a user of the shard that is being killed).")
    var user: String

    @Option(help: "Seconds to try before giving up.")
    var within: Double = 60

    func run() throws {
        let codec = WireCodec()
        let client = RequestClient(
            context: try ZMQContextHolder.shared, endpoint: endpoint, timeoutMilliseconds: 200, attempts: 1,
            security: try BusSecurity.Settings.ofThisProcess())
        let deadline = Date().addingTimeInterval(within)
        var tries = 0
        while Date() < deadline {
            tries += 1
            let envelope = Envelope(type: MessageType.recordTension.rawValue, user: user, body: RecordTensionBody(level: 3))
            if let reply = try? client.request(try codec.encode(envelope)),
                case .success = try ReplyDecoding.decode(reply, as: StateRecord.self, codec: codec)
            {
                Console.line(String(format: "%.3f %d", Date().timeIntervalSince1970, tries))
                return
            }
            Thread.sleep(forTimeInterval: 0.01)
        }
        throw ValidationError("\(endpoint) did not answer \(user)'s intent itself within \(within) s")
    }
}
