import Foundation
import Testing

/// widgetctl's documented contract with scripts: JSON output where a script reads it, and the
/// exit status that `widgetctl --help` documents (0 success, 1 error reply, 2 no answer, 64 usage).
@Suite("widgetctl")
struct WidgetctlTests {
    @Test("ping --json, and the exit status of an answer, an error reply, silence and a usage error")
    func outputAndExitStatus() throws {
        let bus = try BusFixture()
        try bus.start(.intentHandler)

        let ping = try bus.widgetctl("ping", "intent-handler", "--json")
        #expect(ping.status == 0, "\(ping.stderr)")
        let answer = try #require(try JSONSerialization.jsonObject(with: ping.stdoutData) as? [String: Any])
        #expect(answer["service"] as? String == "intent-handler")
        #expect(answer["endpoint"] as? String == bus.endpoint(.intents))
        #expect((answer["milliseconds"] as? Double).map { $0 > 0 } == true)

        let refused = try bus.widgetctl("send", "NoSuchIntent", "--user", "ctl")
        #expect(refused.status == 1 && refused.stderr.contains("unknown_type"), "\(refused.status) \(refused.stderr)")

        let silent = try bus.widgetctl("ping", "timeline-service", "--timeout", "200", "--attempts", "1")
        #expect(silent.status == 2 && silent.stderr.contains("is the service running?"), "\(silent.status) \(silent.stderr)")

        let usage = try bus.widgetctl("send", "RecordTensionIntent", "--user", "ctl", "--body", "{not json")
        #expect(usage.status == 64, "\(usage.status) \(usage.stderr)")

        let help = try bus.widgetctl("--help")
        let section = try #require(help.stdout.range(of: "SUBCOMMANDS:"), "\(help.stdout)")
        let subcommands = help.stdout[section.upperBound...].split(separator: "\n").compactMap { line in
            line.firstMatch(of: /^  ([a-z-]+)/).map { String($0.1) }
        }
        #expect(
            Set(subcommands) == ["send", "timeline", "snapshot", "pending", "watch", "sync", "sync-status", "ingest", "metrics-status", "ping"],
            "widgetctl only publishes and reads: \(subcommands)")
    }
}
