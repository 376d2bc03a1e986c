import Crypto
import FakeAPNs
import Foundation
import ServiceSupport
import Testing

/// push-gateway against answers and settings that once made it misbehave (issue #32), each test
/// failing before its fix: the same processes and fake APNs as ``PushGatewayEndToEndTests``.
extension PushGatewayEndToEndTests {
    @Test("a 429 with Retry-After: 0 is retried no sooner than a second later, however often APNs says it")
    func retryAfterZeroDoesNotSpin() throws {
        let rig = try Rig(users: ["pat"], coalesce: 0.2)
        rig.apns.script(Rig.token(of: "pat"), Array(repeating: .init(status: 429, reason: "TooManyRequests", retryAfter: 0), count: 100))
        try rig.changeWidget(of: "pat", score: 2)
        try rig.bus.waitUntil("pat's push was sent four times", timeout: 30) { rig.requests(to: "pat").count >= 4 }
        let arrivals = rig.requests(to: "pat").map(\.arrivedAt)
        let first = arrivals[0]
        let withinThreeSeconds = arrivals.count { $0.timeIntervalSince(first) < 3 }
        #expect(withinThreeSeconds <= 3, "the first push and at most one retry a second: \(withinThreeSeconds) requests in 3 s")
        let gaps = zip(arrivals.dropFirst(), arrivals).prefix(3).map { $0.timeIntervalSince($1) }
        #expect(gaps.allSatisfy { $0 >= 0.99 }, "every retry waits at least a second: \(gaps)")
    }

    @Test("an http:// APNs URL is refused at start, naming the variable, unless the setting for tests allows it")
    func plaintextAPNsIsRefused() throws {
        let bus = try BusFixture()
        let sending = try Rig.sendingEnvironment(in: bus, key: P256.Signing.PrivateKey(), apnsURL: "https://localhost:1")
        for variable in ["WIDGETBUS_APNS_PRODUCTION_URL", "WIDGETBUS_APNS_SANDBOX_URL"] {
            let process = try ServiceProcess(
                name: "push-gateway", executable: BusFixture.productsDirectory.appendingPathComponent("push-gateway"),
                environment: bus.environment.merging(sending.merging([variable: "http://localhost:1"]) { $1 }) { $1 }, logDirectory: bus.root)
            try bus.waitUntil("push-gateway refuses \(variable)=http://", timeout: 10) { !process.isRunning }
            let said = (process.output + process.log).split(separator: "\n").filter { $0.contains(variable as String) }
            #expect(said.count == 1 && said.first?.contains("https") == true, "push-gateway said: \(process.output) \(process.log)")
            #expect(process.terminate() == InvalidSetting.exitStatus, "push-gateway exits as for every refused setting")
        }

        let allowed = try bus.start(
            .pushGateway,
            extraEnvironment: sending.merging(["WIDGETBUS_APNS_PRODUCTION_URL": "http://localhost:1", "WIDGETBUS_APNS_ALLOW_PLAINTEXT_FOR_TESTS": "1"]) { $1 })
        #expect(allowed.log.contains("WIDGETBUS_APNS_ALLOW_PLAINTEXT_FOR_TESTS"), "it warns that pushes may go in clear text: \(allowed.log)")
    }

    @Test("a stop while APNs has not answered a push is quick, and the push goes again after the restart")
    func aPushUnansweredAtAStopGoesAgain() throws {
        let rig = try Rig(users: ["pat"], coalesce: 0.2)
        rig.apns.script(Rig.token(of: "pat"), [.init(status: 200, delay: 10)])
        try rig.changeWidget(of: "pat", score: 2)
        try rig.bus.waitUntil("pat's push reached APNs", timeout: 20) { rig.requests(to: "pat").count == 1 }
        let restarted = try rig.killAndRestartGateway(gracefully: true)
        try rig.waitUntilSettled(answered: 1, "pat's push, sent again by the new push-gateway, is answered")
        #expect(rig.requests(to: "pat").count == 2, "the unanswered push, then the same again")
        #expect(restarted.log.contains("a push in flight when push-gateway stopped is sent again"), "\(restarted.log)")
    }

    @Test("a restart reuses the provider token: pushes before and after a kill -9 carry the same one")
    func providerTokenSurvivesARestart() throws {
        let rig = try Rig(users: ["pat", "fay"], coalesce: 0.2)
        try rig.changeWidget(of: "pat", score: 2)
        try rig.waitUntilSettled(answered: 1, "pat's push is answered")
        _ = try rig.killAndRestartGateway()
        try rig.bus.waitUntil("the new push-gateway has read both widgets", timeout: 15) {
            try rig.metric("widgetbus_replica_entries", ["endpoint": "timeline_events"]) == 2
        }
        try rig.changeWidget(of: "fay", score: 2)
        try rig.waitUntilSettled(answered: 1, "fay's push is answered by the new push-gateway")
        let before = try #require(rig.requests(to: "pat").first?.headers["authorization"])
        let after = try #require(rig.requests(to: "fay").first?.headers["authorization"])
        #expect(before == after, "one provider token (same iat, same signature) across the restart")
    }

    @Test("a token APNs calls DeviceTokenNotForTopic is sent nothing more, across a restart, and stays registered")
    func aTokenNotForTheTopicIsSentNoMore() throws {
        let rig = try Rig(users: ["pat", "fay"], coalesce: 0.2, interval: 0)
        let pat = Rig.token(of: "pat")
        rig.apns.script(pat, [.init(status: 400, reason: "DeviceTokenNotForTopic")])
        try rig.changeWidget(of: "pat", score: 2)
        try rig.waitUntilSettled(answered: 1, "pat's push is refused")
        #expect(try rig.metric("widgetbus_push_tokens_refused_total", ["reason": "DeviceTokenNotForTopic"]) == 1)

        // pat's change, then fay's on the same publisher: once fay's push is answered, the
        // gateway has read pat's change too.
        func changeBothAndWaitForFay(score: Int, pushedBefore: Int) throws {
            try rig.changeWidget(of: "pat", score: score)
            try rig.changeWidget(of: "fay", score: score)
            try rig.bus.waitUntil("fay's push is answered", timeout: 20) {
                let delivered = try rig.metric("widgetbus_pushes_total", ["result": "delivered"]) ?? 0
                let waiting = try rig.metric("widgetbus_pushes_waiting") ?? 0
                return rig.requests(to: "fay").count == pushedBefore + 1 && delivered >= 1 && waiting == 0
            }
        }
        try changeBothAndWaitForFay(score: 3, pushedBefore: 0)
        #expect(rig.requests(to: "pat").count == 1, "nothing more to the refused token")
        let restarted = try rig.killAndRestartGateway()
        try rig.bus.waitUntil("the new push-gateway has read both widgets", timeout: 15) {
            try rig.metric("widgetbus_replica_entries", ["endpoint": "timeline_events"]) == 2
        }
        try changeBothAndWaitForFay(score: 4, pushedBefore: 1)
        #expect(rig.requests(to: "pat").count == 1, "nothing more after a restart either: the mark is stored")
        #expect(!restarted.log.contains("APNs refused a push token for good"), "logged once, by the gateway that was refused")

        let other = String(repeating: "00", count: 32)
        let tokens = try rig.bus.succeed("push-token", "remove", "--user", "pat", "--token", other).stdout
        #expect(tokens.contains(pat), "pat's registration is kept: \(tokens)")
    }
}
