import Crypto
import FakeAPNs
import Foundation
import Testing
import WidgetBusProtocol

/// push-gateway as a process between the real intent-handler and timeline-service and a fake
/// APNs speaking HTTP/2 over TLS: what reaches APNs for a change, a burst, a refresh, a token APNs
/// calls gone and a 429.
@Suite("push-gateway against a fake APNs", .blockingThreads)
struct PushGatewayEndToEndTests {
    /// intent-handler, timeline-service and push-gateway sending to a fake APNs with a key of the
    /// test's, its metrics served; users and tokens registered, each with a first Jitter widget
    /// timeline published before push-gateway starts (a widget seen first is only remembered).
    final class Rig {
        let bus: BusFixture
        let apns: FakeAPNs
        let key = P256.Signing.PrivateKey()
        private(set) var metricsURL = ""
        /// timeline-service's metrics: what it published.
        private(set) var timelinesURL = ""
        private var gatewayEnvironment: [String: String] = [:]
        static let topic = "com.example.widgetbus.push-type.widgets"

        init(users: [String], coalesce: Double, interval: Double = 3_600) throws {
            bus = try BusFixture()
            apns = try FakeAPNs()
            let caFile = bus.root.appendingPathComponent("apns-ca.pem")
            try apns.caPEM.write(to: caFile, atomically: true, encoding: .utf8)
            try bus.start(.intentHandler)
            timelinesURL = try bus.startServingMetrics(.timelineService)
            for user in users {
                try bus.succeed("push-token", "register", "--user", user, "--token", Self.token(of: user), "--environment", "production", "--kind", "JitterWidget")
                try changeWidget(of: user, score: 1)
            }
            gatewayEnvironment = try Self.sendingEnvironment(in: bus, key: key, apnsURL: apns.url).merging([
                "WIDGETBUS_APNS_CA_FILE": caFile.path, "WIDGETBUS_PUSH_COALESCE_S": "\(coalesce)", "WIDGETBUS_PUSH_INTERVAL_S": "\(interval)",
            ]) { $1 }
            metricsURL = try bus.startServingMetrics(.pushGateway, extraEnvironment: gatewayEnvironment)
            try bus.waitUntil("push-gateway has read every widget", timeout: 15) {
                try metric("widgetbus_replica_entries", ["endpoint": "timeline_events"]) == Double(users.count)
            }
        }

        /// What push-gateway needs to send to the APNs at `apnsURL` (both environments) with `key`,
        /// written as a `.p8` file into the bus's folder.
        static func sendingEnvironment(in bus: BusFixture, key: P256.Signing.PrivateKey, apnsURL: String) throws -> [String: String] {
            let keyFile = bus.root.appendingPathComponent("AuthKey_TEST.p8")
            try key.pemRepresentation.write(to: keyFile, atomically: true, encoding: .utf8)
            return [
                "WIDGETBUS_APNS_MODE": "send", "WIDGETBUS_APNS_KEY_FILE": keyFile.path, "WIDGETBUS_APNS_KEY_ID": "ABC123DEFG",
                "WIDGETBUS_APNS_TEAM_ID": "TEAM456789", "WIDGETBUS_APNS_TOPIC": topic, "WIDGETBUS_APNS_SANDBOX_URL": apnsURL,
                "WIDGETBUS_APNS_PRODUCTION_URL": apnsURL,
            ]
        }

        /// kill -9 (or SIGTERM, and an exit 0 within two seconds) of push-gateway, and a new one on
        /// the same store; returns its process.
        func killAndRestartGateway(gracefully: Bool = false) throws -> ServiceProcess {
            if gracefully {
                let stopping = ContinuousClock.now
                #expect(bus.stop(.pushGateway) == 0, "push-gateway exits 0 on SIGTERM")
                #expect(ContinuousClock.now - stopping < .seconds(2), "push-gateway stops within two seconds")
            } else {
                bus.kill9(.pushGateway)
            }
            metricsURL = try bus.startServingMetrics(.pushGateway, extraEnvironment: gatewayEnvironment)
            return bus.running[.pushGateway]!
        }

        /// A token of 32 bytes, the user's own.
        static func token(of user: String) -> String {
            String(SHA256.hash(data: Data(user.utf8)).map { String(format: "%02x", $0) }.joined())
        }

        /// Changes what `user`'s Jitter widget shows: the scores, from `score`.
        func changeWidget(of user: String, score: Int) throws {
            try bus.succeed(
                "send", "UpdateJitterScores", "--user", user,
                "--body", #"{"crashRiskScore":\#(score),"focusScore":50,"currentCaffeineLevel":100}"#)
        }

        func metric(_ name: String, _ labels: [String: String] = [:]) throws -> Double? {
            try PrometheusText.scrape(metricsURL).value(name, labels)
        }

        /// Timelines timeline-service published so far.
        func timelinesPublished() throws -> Double {
            try PrometheusText.scrape(timelinesURL).value("widgetbus_timelines_published_total") ?? 0
        }

        func requests(to user: String) -> [FakeAPNs.Request] {
            apns.requests.filter { $0.token == Self.token(of: user) }
        }

        /// Waits until the gateway has answered `count` pushes in all and has none waiting.
        func waitUntilSettled(answered count: Int, _ what: String) throws {
            try bus.waitUntil(what, timeout: 20) {
                let answered = try ["delivered", "token_gone", "retry", "refused"].map { try metric("widgetbus_pushes_total", ["result": $0]) ?? 0 }
                let waiting = try metric("widgetbus_pushes_waiting") ?? 0
                return answered.reduce(0, +) == Double(count) && waiting == 0
            }
        }
    }

    @Test("a change is one push: its path, headers, payload and a provider token the key's public half verifies; a refresh sends nothing")
    func oneChangeIsOnePush() throws {
        let rig = try Rig(users: ["pat", "fay"], coalesce: 0.2)
        let before = Date()
        try rig.changeWidget(of: "pat", score: 2)
        try rig.waitUntilSettled(answered: 1, "pat's push is answered")
        let pushes = rig.requests(to: "pat")
        try #require(pushes.count == 1, "\(rig.apns.requests)")
        let push = pushes[0]
        #expect(push.method == "POST" && push.path == "/3/device/\(Rig.token(of: "pat"))")
        #expect(push.headers["apns-push-type"] == "widgets" && push.headers["apns-topic"] == Rig.topic)
        #expect(push.headers["apns-priority"] == "5")
        let expiration = try #require(push.headers["apns-expiration"].flatMap(TimeInterval.init))
        #expect(expiration > before.timeIntervalSince1970 && expiration <= Date().timeIntervalSince1970 + 86_400 + 1)
        #expect(push.body == #"{"aps":{"content-changed":true}}"#)

        let bearer = try #require(push.headers["authorization"]?.split(separator: " "))
        #expect(bearer.first == "bearer")
        let parts = try #require(bearer.last?.split(separator: "."))
        try #require(parts.count == 3)
        let header = try JSONSerialization.jsonObject(with: try Self.base64URL(parts[0])) as? [String: String]
        #expect(header == ["alg": "ES256", "kid": "ABC123DEFG"])
        let claims = try #require(try JSONSerialization.jsonObject(with: try Self.base64URL(parts[1])) as? [String: Any])
        #expect(claims["iss"] as? String == "TEAM456789")
        #expect((claims["iat"] as? Double).map { abs($0 - before.timeIntervalSince1970) < 60 } == true)
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: try Self.base64URL(parts[2]))
        #expect(rig.key.publicKey.isValidSignature(signature, for: Data("\(parts[0]).\(parts[1])".utf8)), "signed with the .p8 key")

        // A new zone republishes the widget with the same content: nothing to push. fay's change
        // after it, on the same publisher, shows when the gateway has read the republished one.
        let published = try rig.timelinesPublished()
        try rig.bus.succeed("send", "SetTimeZone", "--user", "pat", "--body", #"{"timeZone":"Europe/Paris"}"#)
        try rig.bus.waitUntil("timeline-service republished pat's widget", timeout: 10) { try rig.timelinesPublished() == published + 1 }
        try rig.changeWidget(of: "fay", score: 2)
        try rig.waitUntilSettled(answered: 2, "fay's push is answered")
        #expect(rig.requests(to: "pat").count == 1, "the republished timeline sent nothing")
        #expect(rig.requests(to: "fay").count == 1)
        #expect(try rig.metric("widgetbus_pushes_total", ["result": "delivered"]) == 2)
        let changes = try rig.metric("widgetbus_push_changes_total")
        #expect(changes == 2, "two changes: pat's and fay's; the republished timeline was none")
    }

    /// timeline-service may coalesce changes that reach it together into one timeline, so the
    /// changes push-gateway sees are the timelines timeline-service published, not the intents.
    @Test("ten changes within the coalescing delay are one push")
    func tenChangesAreOnePush() throws {
        let rig = try Rig(users: ["pat"], coalesce: 4)
        let published = try rig.timelinesPublished()
        for score in 2...11 { try rig.changeWidget(of: "pat", score: score) }
        try rig.waitUntilSettled(answered: 1, "the push is answered")
        let changes = try rig.timelinesPublished() - published
        try #require(changes >= 2, "the ten intents were published as at least two timelines")
        #expect(rig.requests(to: "pat").count == 1)
        #expect(try rig.metric("widgetbus_push_changes_total", ["result": "scheduled"]) == 1)
        #expect(try rig.metric("widgetbus_push_changes_total", ["result": "joined"]) == changes - 1)
    }

    @Test("a token APNs calls Unregistered is removed through intent-handler and pushed no more")
    func aGoneTokenIsRemoved() throws {
        let rig = try Rig(users: ["pat", "fay"], coalesce: 0.2, interval: 0)
        rig.apns.script(Rig.token(of: "pat"), [.init(status: 410, reason: "Unregistered")])
        try rig.changeWidget(of: "pat", score: 2)
        try rig.waitUntilSettled(answered: 1, "the push is answered")
        #expect(try rig.metric("widgetbus_pushes_total", ["result": "token_gone"]) == 1)
        try rig.bus.waitUntil("intent-handler no longer has the token", timeout: 10) {
            let other = String(repeating: "00", count: 32)
            let tokens = try rig.bus.succeed("push-token", "remove", "--user", "pat", "--token", other).stdout
            return !tokens.contains(Rig.token(of: "pat"))
        }

        try rig.changeWidget(of: "pat", score: 3)
        try rig.changeWidget(of: "fay", score: 2)
        try rig.waitUntilSettled(answered: 2, "fay's push is answered")
        #expect(rig.requests(to: "pat").count == 1, "nothing more to the removed token")
        #expect(try rig.metric("widgetbus_push_changes_total", ["result": "scheduled"]) == 2, "pat's first change and fay's; pat's second none")
    }

    @Test("a 429 backs off and is retried, after the Retry-After APNs gives")
    func tooManyRequestsIsRetried() throws {
        let rig = try Rig(users: ["pat"], coalesce: 0.2)
        rig.apns.script(Rig.token(of: "pat"), [.init(status: 429, reason: "TooManyRequests", retryAfter: 3)])
        try rig.changeWidget(of: "pat", score: 2)
        try rig.waitUntilSettled(answered: 2, "the retry is answered")
        let pushes = rig.requests(to: "pat")
        try #require(pushes.count == 2)
        #expect(pushes[1].arrivedAt.timeIntervalSince(pushes[0].arrivedAt) >= 2.9, "it waited for Retry-After (its own backoff would be 1 s at most)")
        #expect(try rig.metric("widgetbus_pushes_total", ["result": "retry"]) == 1)
        #expect(try rig.metric("widgetbus_pushes_total", ["result": "delivered"]) == 1)
    }

    @Test("kill -9 under load: every change is pushed, and none twice but the push in flight at the kill")
    func killNineLosesNoPushAndRepeatsNone() throws {
        let users = (1...30).map { "user-\($0)" }
        let rig = try Rig(users: users, coalesce: 0.5)
        // user-1's push is held by APNs across the kill: its fate unknown to the gateway.
        let held = Rig.token(of: users[0])
        rig.apns.script(held, [.init(status: 200, delay: 5)])
        try rig.changeWidget(of: users[0], score: 2)
        try rig.bus.waitUntil("user-1's push is in flight", timeout: 10) { !rig.requests(to: users[0]).isEmpty }
        for (index, user) in users.enumerated().dropFirst() {
            if index == users.count / 2 {
                let restarted = try rig.killAndRestartGateway()
                try rig.bus.waitUntil("the new push-gateway is ready", timeout: 15) { restarted.log.contains("push-gateway ready") }
            }
            try rig.changeWidget(of: user, score: 2)
        }
        try rig.bus.waitUntil("every user's device is pushed", timeout: 30) {
            let pushed = Set(rig.apns.requests.map(\.token))
            let waiting = try rig.metric("widgetbus_pushes_waiting") ?? 0
            return users.allSatisfy { pushed.contains(Rig.token(of: $0)) } && waiting == 0 && rig.requests(to: users[0]).count >= 2
        }
        let log = try #require(rig.bus.running[.pushGateway]).log
        #expect(log.contains("resent \(held.prefix(8))"), "the push in flight at the kill is sent again")
        #expect(rig.requests(to: users[0]).count == 2)
        for user in users.dropFirst() {
            let pushes = rig.requests(to: user).count
            #expect(pushes == 1 || (pushes == 2 && log.contains("resent \(Rig.token(of: user).prefix(8))")), "\(user): \(pushes) pushes")
        }
    }

    @Test("SIGTERM waits for the answer to a push in flight: nothing is sent again after the restart")
    func aStopWaitsForThePushInFlight() throws {
        let rig = try Rig(users: ["pat"], coalesce: 0.2)
        rig.apns.script(Rig.token(of: "pat"), [.init(status: 200, delay: 0.8)])
        try rig.changeWidget(of: "pat", score: 2)
        try rig.bus.waitUntil("pat's push is in flight", timeout: 10) { !rig.requests(to: "pat").isEmpty }
        let restarted = try rig.killAndRestartGateway(gracefully: true)
        try rig.bus.waitUntil("the new push-gateway has read pat's widget", timeout: 15) {
            try rig.metric("widgetbus_replica_entries", ["endpoint": "timeline_events"]) == 1
        }
        #expect(try rig.metric("widgetbus_pushes_waiting") ?? 0 == 0)
        #expect(!restarted.log.contains("sent again"), "the answer was taken before the stop")
        #expect(rig.requests(to: "pat").count == 1)
    }

    static func base64URL(_ part: Substring) throws -> Data {
        var text = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        text += String(repeating: "=", count: (4 - text.count % 4) % 4)
        return try #require(Data(base64Encoded: text))
    }
}
