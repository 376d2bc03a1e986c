import Foundation
import Testing
import WidgetBusProtocol

/// widgetctl's documented contract with scripts: JSON output where a script reads it, and the
/// exit status that `widgetctl --help` documents (0 success, 1 error reply, 2 no answer, 64 usage).
@Suite("widgetctl", .blockingThreads)
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
                "push-token", "token",
            ],
            "widgetctl publishes, reads and makes keys and development tokens: \(subcommands)")
    }

    @Test("push-token register and remove: the user's tokens as JSON, kept across a kill -9, and a bad token refused")
    func pushTokens() throws {
        let bus = try BusFixture()
        try bus.start(.intentHandler)
        let token = String(repeating: "0f", count: 32)

        let registered = try bus.widgetctl(
            "push-token", "register", "--user", "pat", "--token", token.uppercased(), "--environment", "production",
            "--kind", "JitterWidget", "--kind", "TensionCheckWidget")
        #expect(registered.status == 0, "\(registered.stderr)")
        let tokens = try JSONDecoder().decode(UserPushTokensJSON.self, from: registered.stdoutData)
        #expect(tokens.user == "pat" && tokens.version > 0)
        #expect(tokens.tokens.map(\.token) == [token] && tokens.tokens[0].kinds == ["JitterWidget", "TensionCheckWidget"])

        bus.kill9(.intentHandler)
        try bus.start(.intentHandler)
        let everyKind = try bus.widgetctl("push-token", "register", "--user", "pat", "--token", String(repeating: "a1", count: 32))
        let both = try JSONDecoder().decode(UserPushTokensJSON.self, from: everyKind.stdoutData)
        #expect(both.tokens.map(\.token) == [token, String(repeating: "a1", count: 32)], "the first token outlived a kill -9")
        #expect(both.tokens[1].environment == "sandbox" && both.tokens[1].kinds.count == 8, "the sandbox and every kind by default")

        let removed = try bus.widgetctl("push-token", "remove", "--user", "pat", "--token", token)
        #expect(try JSONDecoder().decode(UserPushTokensJSON.self, from: removed.stdoutData).tokens.count == 1)

        let refused = try bus.widgetctl("push-token", "register", "--user", "pat", "--token", "not-hex")
        #expect(refused.status == 1 && refused.stderr.contains("invalid_push_token"), "\(refused.status) \(refused.stderr)")
    }

    /// `PushTokensReply`'s body as a script reads it.
    private struct UserPushTokensJSON: Decodable {
        struct Token: Decodable {
            var token: String
            var environment: String
            var kinds: [String]
        }

        var user: String
        var tokens: [Token]
        var version: Int
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
