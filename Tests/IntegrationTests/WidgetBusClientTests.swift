import AppGatewayIdentity
import AsyncHTTPClient
import Foundation
import NIOCore
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime
import Testing
import WidgetBusClient

/// WidgetBusClient against the real gateway and services: every call over the URLSession
/// transport it uses by default (plain HTTP on loopback: swift-corelibs-foundation's URLSession
/// cannot be told to trust the test CA; TLS is AppGatewayEndToEndTests' part), and the live stream
/// over AsyncHTTPClient's, since swift-corelibs-foundation's URLSession does not stream bodies.
@Suite("WidgetBusClient against app-gateway")
struct WidgetBusClientTests {
    @Test("every call: a tap, read-your-writes, a 304 that returns the cached body, the snapshot, push tokens, samples, health")
    func everyCall() async throws {
        let gateway = try GatewayFixture(tls: false)
        let client = try Self.client(of: gateway, for: "alice", cache: gateway.bus.root.appendingPathComponent("client-cache"))
        #expect(await client.isHealthy())

        let reply = try await client.perform(.recordTensionIntent, body: ["level": 7])
        let state = try #require(reply.stateReply, "\(reply)")
        #expect(state.body.user == GatewayFixture.user("alice") && state.body.app == .tensionCheck)

        let first = try await client.timeline(for: .tensionCheckWidget, atLeast: state.body.version)
        #expect(first.source == .gateway && first.value.stateVersion == state.body.version)
        #expect(first.value.user == GatewayFixture.user("alice") && first.value.kind == .tensionCheckWidget)
        // Once the gateway follows that edition, asking again revalidates: 304, the cached body.
        try await waitUntilAsync("a revalidated timeline") {
            let cached = try await client.timeline(for: .tensionCheckWidget)
            let again = try await client.timeline(for: .tensionCheckWidget)
            return again.source == .revalidated && again.value == cached.value && again.value.stateVersion == state.body.version
        }

        try await waitUntilAsync("the snapshot") {
            do {
                return try await client.snapshot(for: .tensionCheckWidget).source == .gateway
            } catch let error as WidgetBusClientError where error.code == .noSnapshot {
                return false  // snapshot-writer has not written it yet
            }
        }
        let snapshot = try await client.snapshot(for: .tensionCheckWidget)
        #expect(String(decoding: try JSONEncoder().encode(snapshot.value), as: UTF8.self).contains("\"tensionLevel\":7"))
        let noSnapshot = await #expect(throws: WidgetBusClientError.self, "no Diet snapshot yet") { try await client.snapshot(for: .dietProgressWidget) }
        #expect(noSnapshot?.code == .noSnapshot)

        let token = Data(repeating: 0xAB, count: 32)
        let registered = try await client.registerPushToken(token, environment: .sandbox, kinds: [.tensionCheckWidget])
        #expect(registered.body.tokens.map(\.token) == [String(repeating: "ab", count: 32)])
        #expect(registered.body.tokens.first?.kinds == [.tensionCheckWidget] && registered.body.tokens.first?.environment == .sandbox)
        let removed = try await client.removePushToken(token)
        #expect(removed.body.tokens.isEmpty && removed.body.version > registered.body.version)

        let accepted = try await client.upload(samples: [
            .init(kind: .stress, takenAt: Date(), source: "watch", score: 40),
            .init(kind: .hrv, takenAt: Date(), source: "watch", milliseconds: 52, measure: .rmssd),
        ])
        #expect(accepted.samples == 2)
    }

    @Test("a refused intent throws its problem code and changes nothing; a refused token is asked for again once")
    func refusals() async throws {
        let gateway = try GatewayFixture(tls: false)
        let client = try Self.client(of: gateway, for: "bob")
        let error = await #expect(throws: WidgetBusClientError.self) {
            try await client.perform(.recordTensionIntent, body: ["level": 4])
        }
        #expect(error?.code == .invalidLevel && error?.isTransient == false)

        // The first token has run out; the provider is asked for a renewed one, which is used.
        let requests = Collected<WidgetBusClient.TokenRequest>()
        let now = Int(Date().timeIntervalSince1970)
        let expired = try gateway.token("bob") { $0.exp = now - 120; $0.iat = now - 3_720 }
        let fresh = try gateway.token("bob")
        let renewing = WidgetBusClient(serverURL: URL(string: gateway.baseURL)!) { request in
            requests.append(request)
            return request == .current ? expired : fresh
        }
        let reply = try await renewing.perform(.recordTensionIntent, body: ["level": 3])
        #expect(reply.stateReply?.body.version == 1, "the refused level changed nothing")
        #expect(requests.all == [.current, .renewed])

        // A provider that has no token (signed out): said so, not retried, nothing sent.
        struct SignedOut: Error {}
        let signedOut = WidgetBusClient(serverURL: URL(string: gateway.baseURL)!) { _ in throw SignedOut() }
        let noToken = await #expect(throws: WidgetBusClientError.self) { try await signedOut.perform(.recordTensionIntent, body: ["level": 5]) }
        guard case .noToken(let cause) = noToken, cause is SignedOut else {
            Issue.record("not noToken: \(String(describing: noToken))")
            return
        }
        #expect(noToken?.isTransient == false)
    }

    @Test("a tap whose answer is lost on the way is sent again with the same key and applied once")
    func aLostAnswerIsRetriedOnce() async throws {
        let gateway = try GatewayFixture(tls: false)
        let relay = try TCPRelay(to: gateway.port)
        let client = try Self.client(of: gateway, for: "carol", url: "http://127.0.0.1:\(relay.port)")
        relay.cutNextAnswer()
        let reply = try await client.perform(.recordTensionIntent, body: ["level": 5])
        #expect(relay.cuts == 1, "the first answer was cut")
        #expect(reply.stateReply?.body.version == 1, "applied once, and the retry got its stored reply")
        let next = try await client.perform(.recordTensionIntent, body: ["level": 7])
        #expect(next.stateReply?.body.version == 2)
    }

    @Test("with the gateway stopped, the cached timeline and snapshot come back marked cached, with their age")
    func offlineFallsBackToTheCache() async throws {
        let gateway = try GatewayFixture(tls: false)
        let cache = gateway.bus.root.appendingPathComponent("client-cache")
        let client = try Self.client(of: gateway, for: "dave", cache: cache)
        let state = try #require(try await client.perform(.recordTensionIntent, body: ["level": 3]).stateReply)
        let online = try await client.timeline(for: .tensionCheckWidget, atLeast: state.body.version)
        try await waitUntilAsync("the snapshot") { (try? await client.snapshot(for: .tensionCheckWidget)) != nil }

        try gateway.stopGateway()
        // A widget's client: its own instance over the shared folder, with the widget's short retries.
        let widget = try Self.client(of: gateway, for: "dave", cache: cache, retries: .widget)
        let offline = try await widget.timeline(for: .tensionCheckWidget)
        let shown = try (JSONEncoder().encode(offline.value), JSONEncoder().encode(online.value))
        #expect(offline.value == online.value, "\(String(decoding: shown.0, as: UTF8.self)) \(String(decoding: shown.1, as: UTF8.self))")
        guard case .cache(let age) = offline.source else {
            Issue.record("not marked cached: \(offline.source)")
            return
        }
        #expect(age >= .zero && age < .seconds(60), "\(age)")
        #expect(try await widget.snapshot(for: .tensionCheckWidget).isCached)
        let nothingCached = await #expect(throws: WidgetBusClientError.self, "nothing cached of another kind") {
            try await widget.timeline(for: .dietProgressWidget)
        }
        guard case .unreachable = nothingCached else {
            Issue.record("not unreachable: \(String(describing: nothingCached))")
            return
        }
        // Sign-out: nothing of this account is shown any more.
        try widget.clearCache()
        await #expect(throws: WidgetBusClientError.self) { try await widget.timeline(for: .tensionCheckWidget) }
    }

    @Test("events() gets the user's changes, and after the gateway restarts resumes without a gap")
    func eventsResumeAcrossARestart() async throws {
        let gateway = try GatewayFixture(tls: false)
        let relay = try TCPRelay(to: gateway.port)  // to see what the client sends when it reconnects
        let client = try Self.client(
            of: gateway, for: "erin", url: "http://127.0.0.1:\(relay.port)",
            transport: AsyncHTTPClientTransport(configuration: .init(client: .shared, timeout: .seconds(60))))
        let first = try #require(try await client.perform(.recordTensionIntent, body: ["level": 3]).stateReply).body.version
        // An id of no epoch: the stream starts with the latest timeline of every widget.
        let changes = Collected<TimelineChange>()
        let consumer = Task {
            for try await change in client.events(after: "0000000000000000-0") { changes.append(change) }
        }
        defer { consumer.cancel() }
        // Tension Check's versions as they came (a refresh at a policy date would repeat one).
        let versions = { changes.all.filter { $0.timeline.kind == .tensionCheckWidget }.map(\.timeline.stateVersion) }
        try await waitUntilAsync("the latest timeline", timeout: 30) { versions() == [first] }

        _ = try await client.perform(.recordTensionIntent, body: ["level": 5])
        try await waitUntilAsync("the tap's change", timeout: 30) { versions().last == first + 1 }

        // While the gateway is down, the user taps on another device (straight to the bus).
        let lastSeen = try #require(changes.all.last?.id)
        try gateway.stopGateway()
        let tap = try gateway.bus.widgetctl("send", "RecordTensionIntent", "--user", GatewayFixture.user("erin"), "--body", #"{"level":7}"#)
        #expect(tap.status == 0, "\(tap.stderr)")
        try gateway.stopGateway(restart: true)
        try await waitUntilAsync("the change made while the stream was down", timeout: 30) { versions().last == first + 2 }
        #expect(Set(versions()) == [first, first + 1, first + 2] && versions() == versions().sorted(), "\(versions())")
        #expect(Set(changes.all.map(\.id)).count == changes.all.count, "no event twice")
        // It resumed from the last event it returned, not from the start.
        #expect(String(decoding: relay.bytes, as: UTF8.self).lowercased().contains("last-event-id: \(lastSeen.lowercased())"))
    }

    // MARK: - Support

    static func client(
        of gateway: GatewayFixture, for subject: String, url: String? = nil, cache: URL? = nil,
        retries: RetryPolicy = RetryPolicy(), transport: (any ClientTransport)? = nil
    ) throws -> WidgetBusClient {
        let token = try gateway.token(subject)
        let serverURL = try #require(URL(string: url ?? gateway.baseURL))
        if let transport {
            return WidgetBusClient(serverURL: serverURL, cacheDirectory: cache, retries: retries, transport: transport) { _ in token }
        }
        return WidgetBusClient(serverURL: serverURL, cacheDirectory: cache, retries: retries) { _ in token }
    }
}

/// What another task saw, in order.
private final class Collected<Element: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var elements: [Element] = []
    func append(_ element: Element) { lock.withLock { elements.append(element) } }
    var all: [Element] { lock.withLock { elements } }
}

extension Components.Schemas.IntentReply {
    var stateReply: Components.Schemas.StateReplyMessage? {
        if case .stateReply(let reply) = self { reply } else { nil }
    }
}
