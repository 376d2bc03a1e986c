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
            Set(subcommands) == [
                "send", "timeline", "snapshot", "pending", "watch", "sync", "sync-status", "ingest", "metrics-status", "ping", "keygen",
            ],
            "widgetctl publishes, reads and makes keys: \(subcommands)")
    }

    @Test("keygen writes a CURVE pair, the secret for its owner only, and prints the public key, never the secret")
    func keygen() throws {
        let bus = try BusFixture()
        let directory = bus.root.appendingPathComponent("keys")
        let made = try bus.widgetctl("keygen", "--out", directory.path, "--name", "phone-app")
        #expect(made.status == 0, "\(made.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: made.stdoutData) as? [String: String])
        let secretFile = directory.appendingPathComponent("phone-app.key_secret")
        #expect(summary["publicFile"] == directory.appendingPathComponent("phone-app.key").path && summary["secretFile"] == secretFile.path)
        let mode = try FileManager.default.attributesOfItem(atPath: secretFile.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let secret = try String(contentsOf: secretFile, encoding: .utf8)
        let secretKey = try #require(secret.firstMatch(of: /secret-key = "([^"]{40})"/)?.1)
        #expect(secret.contains("public-key = \"\(summary["publicKey"] ?? "?")\""))
        #expect(!made.stdout.contains(secretKey) && !made.stderr.contains(secretKey))

        let again = try bus.widgetctl("keygen", "--out", directory.path, "--name", "phone-app")
        #expect(again.status == 1 && again.stderr.contains("File exists"), "an existing key is never replaced")
        #expect(try String(contentsOf: secretFile, encoding: .utf8) == secret)
    }
}
