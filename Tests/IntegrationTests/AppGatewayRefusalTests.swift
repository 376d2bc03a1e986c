import AsyncHTTPClient
import AppGatewayIdentity
import Crypto
import Foundation
import JWTKit
import NIOCore
import NIOHTTP1
import ServiceSupport
import Testing
import WidgetBusProtocol
import WidgetDomain

/// What app-gateway refuses, over HTTPS against the real processes: every token that does not
/// prove a user, input that is not what the contract says, floods, a bus that does not answer,
/// and plain HTTP beyond loopback. Each refusal is problem details with a stable code, and
/// changes nothing.
@Suite(.serialized)
struct AppGatewayRefusalTests {
    @Test("each token that proves no user is refused 401 with WWW-Authenticate: Bearer, and user A's token reaches only A")
    func tokensThatProveNoUser() async throws {
        let metricsPort = try freeLoopbackPort()
        let gateway = try GatewayFixture(
            services: [.intentHandler, .timelineService], extraEnvironment: ["WIDGETBUS_HTTP_LISTEN": "127.0.0.1:\(metricsPort)"])
        let path = "/v1/widgets/TensionCheckWidget/timeline"
        let now = Int(Date().timeIntervalSince1970)
        let good = try gateway.token("alice")
        let parts = good.split(separator: ".").map(String.init)
        let otherKey = IssuerSigningKey(generating: .es256)

        func base64URL(_ json: String) -> String {
            Data(json.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
        let claims = #"{"iss":"\#(GatewayFixture.issuer)","aud":"\#(GatewayFixture.audience)","sub":"alice","exp":\#(now + 3600)}"#
        // "Signed" with HMAC keyed by the public JWKS's bytes: algorithm confusion.
        let hmacInput = base64URL(#"{"alg":"HS256","kid":"\#(gateway.kid)","typ":"JWT"}"#) + "." + base64URL(claims)
        let jwks = try gateway.signingKey.jwks(kid: gateway.kid)
        let mac = HMAC<SHA256>.authenticationCode(for: Data(hmacInput.utf8), using: SymmetricKey(data: jwks))
        let hmacToken = hmacInput + "." + Data(mac).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")

        let cases: [(String, String?, String?)] = [
            ("no token", nil, nil),
            ("expired", try gateway.token("alice") { $0.exp = now - 120; $0.iat = now - 3_720 }, "invalid_token"),
            ("not yet valid", try gateway.token("alice") { $0.nbf = now + 600 }, "invalid_token"),
            ("wrong issuer", try gateway.token("alice") { $0.iss = "https://evil.example" }, "invalid_token"),
            ("wrong audience", try gateway.token("alice") { $0.aud = "another-app" }, "invalid_token"),
            ("alg none", base64URL(#"{"alg":"none","typ":"JWT"}"#) + "." + base64URL(claims) + ".", "invalid_token"),
            ("HMAC against the public key", hmacToken, "invalid_token"),
            ("unknown kid", try otherKey.sign(IssuedTokenClaims(issuer: GatewayFixture.issuer, audience: GatewayFixture.audience, subject: "alice", issuedAt: Date(), lifetime: 600), kid: "nobody"), "invalid_token"),
            ("bad signature", try otherKey.sign(IssuedTokenClaims(issuer: GatewayFixture.issuer, audience: GatewayFixture.audience, subject: "alice", issuedAt: Date(), lifetime: 600), kid: gateway.kid), "invalid_token"),
            ("a tampered payload", parts[0] + "." + base64URL(claims.replacingOccurrences(of: "alice", with: "bob")) + "." + parts[2], "invalid_token"),
        ]
        for (name, token, error) in cases {
            let answer = try await gateway.request(.GET, path, token: token)
            #expect(answer.status == 401 && answer.problemCode == "unauthorized", "\(name): \(answer.status) \(answer.text)")
            let challenge = answer.headers.first(name: "www-authenticate") ?? ""
            #expect(challenge.hasPrefix("Bearer"), "\(name): \(challenge)")
            if let error {
                #expect(challenge.contains(#"error="\#(error)""#), "\(name): \(challenge)")
            } else {
                #expect(!challenge.contains("error="), "no credentials, no error code (RFC 6750 §3.1)")
            }
        }
        // Within the documented skew of 60 s a token is still good.
        let justExpired = try gateway.token("alice") { $0.exp = Int(Date().timeIntervalSince1970) - 30 }
        let withinSkew = try await gateway.request(.GET, path, token: justExpired)
        #expect(withinSkew.status == 200, "\(withinSkew.text)")

        // A's token reaches only A: what B reads is B's, and no body names another user.
        _ = try await gateway.tap("alice", "RecordTensionIntent", #"{"level":10}"#)
        let bobs = try await gateway.request(.GET, path, token: gateway.token("bob"))
        let bobsTimeline = try bobs.json()
        #expect(bobsTimeline["user"] as? String == GatewayFixture.user("bob") && bobsTimeline["stateVersion"] as? Int == 0)
        let impersonation = try await gateway.request(
            .POST, "/v1/intents", token: gateway.token("bob"), body: #"{"type":"ResetWidgetIntent","body":{},"user":"dev:alice"}"#)
        #expect(impersonation.status == 400 && impersonation.problemCode == "invalid_field", "\(impersonation.text)")
        #expect(try gateway.bus.storedState(.tensionCheck, user: GatewayFixture.user("alice"))?.version == 1, "alice's state untouched")

        // Each refusal is counted by its reason and by the operation, named by its route.
        let metrics = try PrometheusText.scrape("http://127.0.0.1:\(metricsPort)/metrics")
        for reason in ["missingAuthorization", "expired", "notYetValid", "unknownIssuer", "wrongAudience", "unsignedToken", "hmacAlgorithm", "unknownKeyID", "badSignature"] {
            #expect(metrics.value("widgetbus_gateway_token_refusals_total", ["reason": reason]) ?? 0 >= 1, "\(reason)")
        }
        let operation = "GET /v1/widgets/{kind}/timeline"
        #expect(metrics.value("widgetbus_gateway_requests_total", ["operation": operation, "status": "401"]) == Double(cases.count))
        #expect(metrics.value("widgetbus_gateway_requests_total", ["operation": "POST /v1/intents", "status": "400"]) == 1)
        #expect(!metrics.samples.contains { $0.labels.values.contains { $0.contains("alice") || $0.contains("TensionCheckWidget") } })
    }

    @Test("bad input gets problem details with a stable code and changes nothing")
    func badInput() async throws {
        let gateway = try GatewayFixture(services: [.intentHandler, .timelineService])
        let alice = try gateway.token("alice")
        let cases: [(String, String, Int, String)] = [
            ("not JSON", "level=7", 400, "bad_json"),
            ("trailing bytes", #"{"type":"RecordTensionIntent","body":{"level":7}} x"#, 400, "bad_json"),
            ("a repeated key", #"{"type":"RecordTensionIntent","body":{"level":3,"level":10}}"#, 400, "bad_json"),
            ("an array", "[]", 400, "bad_json"),
            ("a type that is no intent", #"{"type":"AcknowledgeRecords","body":{}}"#, 400, "unknown_type"),
            ("no type", #"{"body":{}}"#, 400, "missing_field"),
            ("a level the widget refuses", #"{"type":"RecordTensionIntent","body":{"level":4}}"#, 422, "invalid_level"),
            ("a body over the limit", #"{"type":"RecordTensionIntent","body":{"pad":"\#(String(repeating: "x", count: 70_000))"}}"#, 413, "payload_too_large"),
        ]
        for (name, body, status, code) in cases {
            let answer = try await gateway.request(.POST, "/v1/intents", token: alice, body: body)
            #expect(answer.status == status && answer.problemCode == code, "\(name): \(answer.status) \(answer.text)")
            #expect((try? answer.json())?["type"] as? String == "urn:widgetbus:problem:\(code)", "\(name)")
        }
        #expect(try gateway.bus.storedState(.tensionCheck, user: GatewayFixture.user("alice")) == nil, "nothing was changed")
        let unknownKind = try await gateway.request(.GET, "/v1/widgets/NoSuchWidget/timeline", token: alice)
        #expect(unknownKind.status == 404 && unknownKind.problemCode == "not_found")
        let badVersion = try await gateway.request(.GET, "/v1/widgets/TensionCheckWidget/timeline?minimumVersion=-1", token: alice)
        #expect(badVersion.status == 400 && badVersion.problemCode == "invalid_field")
        let noRoute = try await gateway.request(.GET, "/v2/anything", token: alice)
        #expect(noRoute.status == 404 && noRoute.problemCode == "not_found")
    }

    @Test("writes past a user's bucket are answered 429 with Retry-After; a bus that does not answer is 503 within the deadline")
    func floodsAndASilentBus() async throws {
        let gateway = try GatewayFixture(
            services: [.intentHandler, .timelineService],
            extraEnvironment: ["WIDGETBUS_GATEWAY_WRITE_BURST": "3", "WIDGETBUS_GATEWAY_WRITE_RATE": "1", "WIDGETBUS_GATEWAY_BUS_TIMEOUT_MS": "500"])
        // Sent at once, so the bucket's refill (one a second) cannot matter on a slow machine; the
        // refusal is read from the same burst, as a later request may find a token refilled.
        let answers = try await withThrowingTaskGroup(of: GatewayFixture.Answer.self) { group in
            for _ in 0..<4 { group.addTask { try await gateway.tap("eve", "ResetWidgetIntent", "{}") } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.map(\.status).sorted() == [200, 200, 200, 429], "\(answers.map(\.status))")
        let limited = try #require(answers.first { $0.status == 429 })
        #expect(limited.problemCode == "rate_limited" && Int(limited.headers.first(name: "retry-after") ?? "") ?? 0 >= 1)
        #expect(try await gateway.tap("frank", "ResetWidgetIntent", "{}").status == 200, "another user has a bucket of their own")

        gateway.bus.stop(.intentHandler)
        let started = ContinuousClock.now
        let silent = try await gateway.tap("frank", "RecordTensionIntent", #"{"level":3}"#)
        #expect(silent.status == 503 && silent.problemCode == "unavailable" && silent.headers.first(name: "retry-after") != nil, "\(silent.text)")
        #expect(ContinuousClock.now - started < .seconds(3), "answered within the deadline, not left hanging")
    }

    @Test("behind a proxy on loopback, each client has its own address bucket, by the address the proxy forwarded")
    func addressBucketsBehindAProxy() async throws {
        let gateway = try GatewayFixture(
            services: [.intentHandler, .timelineService],
            extraEnvironment: ["WIDGETBUS_GATEWAY_ADDRESS_BURST": "2", "WIDGETBUS_GATEWAY_ADDRESS_RATE": "1"])
        func health(_ client: String) async throws -> Int {
            try await gateway.request(.GET, "/healthz", token: nil, headers: [("X-Forwarded-For", "198.51.100.7, \(client)")]).status
        }
        let statuses = try await [health("203.0.113.1"), health("203.0.113.1"), health("203.0.113.1")]
        #expect(statuses.filter { $0 == 429 }.count >= 1, "past its burst: \(statuses)")
        #expect(try await health("203.0.113.2") == 200, "another client is not limited by the first")
    }

    @Test("a client silent before its TLS handshake is closed within the idle timeout, and so is an HTTP/2 request whose body never ends; a header over the limit is refused")
    func slowClientsAreClosed() async throws {
        let gateway = try GatewayFixture(services: [.intentHandler, .timelineService], extraEnvironment: ["WIDGETBUS_GATEWAY_IDLE_TIMEOUT_S": "1"])
        // Connects and sends nothing, not even a ClientHello.
        let silent = try connectedLoopbackSocket(port: gateway.port)
        defer { close(silent) }
        let started = ContinuousClock.now
        var byte: UInt8 = 0
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(silent, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        #expect(recv(silent, &byte, 1, 0) == 0, "the gateway closes it (0: end of stream)")
        let waited = ContinuousClock.now - started
        #expect(waited >= .milliseconds(900) && waited < .seconds(4), "within the idle timeout of 1 s: \(waited)")

        // Over HTTP/2, a request whose body never ends: its stream is closed within the idle
        // timeout (a connection with a stream open is never idle, so nothing else would).
        let (body, sending) = AsyncStream.makeStream(of: ByteBuffer.self)
        defer { sending.finish() }
        sending.yield(ByteBuffer(string: #"{"type":"#))
        var stalled = HTTPClientRequest(url: gateway.baseURL + "/v1/intents")
        stalled.method = .POST
        stalled.headers.add(name: "Authorization", value: "Bearer \(try gateway.token("sam"))")
        stalled.headers.add(name: "Content-Type", value: "application/json")
        stalled.body = .stream(body, length: .unknown)
        let sent = ContinuousClock.now
        let answer = try? await gateway.client.execute(stalled, timeout: .seconds(10))
        let held = ContinuousClock.now - sent
        #expect(answer == nil, "no answer to a request not yet read: \(answer.map { "\($0.status)" } ?? "")")
        #expect(held < .seconds(4), "closed within the idle timeout of 1 s: \(held)")

        // A header over the limit is refused, and the gateway still answers the next request.
        // (HTTP/2 refuses it by ending the connection, HTTP/1.1 with a 4xx.)
        do {
            let huge = try await gateway.request(.GET, "/healthz", token: nil, headers: [("X-Pad", String(repeating: "x", count: 20_000))])
            #expect(huge.status >= 400 && huge.status < 500, "\(huge.status)")
        } catch let error as HTTPClientError where error == .remoteConnectionClosed {}
        #expect(try await gateway.request(.GET, "/healthz", token: nil).status == 200)
    }

    @Test("plain HTTP beyond loopback is refused at start unless WIDGETBUS_INSECURE=1; half a TLS setting too", .blockingThreads)
    func plainHTTPBeyondLoopback() throws {
        let bus = try BusFixture()
        let issuers = bus.root.appendingPathComponent("issuers.json")
        try #"{"issuers":[]}"#.write(to: issuers, atomically: true, encoding: .utf8)
        let port = try freeLoopbackPort()
        let open = ["WIDGETBUS_GATEWAY_LISTEN": "0.0.0.0:\(port)", "WIDGETBUS_GATEWAY_ISSUERS": issuers.path]
        let refusal = try StartupRefusalTests.refusal(bus, "app-gateway", open)
        #expect(refusal.status == InvalidSetting.exitStatus)
        #expect(refusal.line(containing: "refusing plain HTTP on 0.0.0.0")?.hasPrefix("app-gateway: ") == true, "\(refusal.lines)")
        let half = try StartupRefusalTests.refusal(bus, "app-gateway", ["WIDGETBUS_GATEWAY_TLS_CERT": "/nowhere.pem", "WIDGETBUS_GATEWAY_ISSUERS": issuers.path])
        #expect(half.status == InvalidSetting.exitStatus && half.line(containing: "set both") != nil, "\(half.lines)")
        let noIssuers = try StartupRefusalTests.refusal(bus, "app-gateway", ["WIDGETBUS_GATEWAY_LISTEN": "127.0.0.1:\(port)"])
        #expect(noIssuers.status == InvalidSetting.exitStatus && noIssuers.line(containing: "WIDGETBUS_GATEWAY_ISSUERS") != nil, "\(noIssuers.lines)")
    }
}
