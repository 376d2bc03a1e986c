import Foundation
import Logging
import ServiceSupport
import Synchronization
import Testing
import WidgetBusProtocol
import ZeroMQ

@testable import BusRuntime

/// The ZAP handler's answers (RFC 27) and the allow-lists behind them, in-process.
@Suite struct ZAPHandlerTests {
    /// A keys directory with intent-handler's key and one publisher, and the security read from it.
    final class Keys {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("zap-\(UUID().uuidString)")
        let service: CurveKeyPair
        let publisher: CurveKeyPair
        let security: BusSecurity

        init() throws {
            service = try .generate()
            publisher = try .generate()
            try CurveCertificate.write(service, name: "intent-handler", in: directory.appendingPathComponent("services"))
            try CurveCertificate.write(publisher, name: "app", in: directory.appendingPathComponent("publishers"))
            for empty in ["gateways", "operators"] {  // every role's folder exists, empty or not
                try FileManager.default.createDirectory(at: directory.appendingPathComponent(empty), withIntermediateDirectories: true)
            }
            let secret = directory.appendingPathComponent("services/intent-handler.key_secret")
            security = try BusSecurity(
                try #require(
                    try BusSecurity.Settings(environment: [
                        BusSecurity.secretKeyFile.variable: secret.path, BusSecurity.keysDirectory.variable: directory.path,
                    ])))
        }

        deinit {
            try? FileManager.default.removeItem(at: directory)
        }
    }

    static func request(domain: String, mechanism: String = "CURVE", key: Data?, version: String = "1.0") -> [Data] {
        [Data(version.utf8), Data("7".utf8), Data(domain.utf8), Data("127.0.0.1".utf8), Data(), Data(mechanism.utf8)] + (key.map { [$0] } ?? [])
    }

    static func binary(_ z85: String) -> Data {
        CurveKeyPair.binary(z85)!
    }

    static func status(_ reply: [Data]?) -> String? {
        reply.map { String(decoding: $0[2], as: UTF8.self) }
    }

    @Test func aListedKeyIsLetInOnItsEndpointsOnly() throws {
        let keys = try Keys()
        let handler = ZAPHandler(security: keys.security, logger: Logger(label: "test"))
        let publisher = Self.binary(keys.publisher.publicKey)
        let allowed = handler.reply(to: Self.request(domain: "WIDGETBUS_INTENTS", key: publisher))
        #expect(Self.status(allowed) == "200" && allowed?[4] == Data(keys.publisher.publicKey.utf8) && allowed?[1] == Data("7".utf8))
        #expect(Self.status(handler.reply(to: Self.request(domain: "WIDGETBUS_STATE_EVENTS", key: publisher))) == "400")
        // The owner's own key on its own endpoint (a health check).
        #expect(Self.status(handler.reply(to: Self.request(domain: "WIDGETBUS_STATE_EVENTS", key: Self.binary(keys.service.publicKey)))) == "200")
    }

    @Test func anythingElseIsRefusedOrUnanswered() throws {
        let keys = try Keys()
        let handler = ZAPHandler(security: keys.security, logger: Logger(label: "test"))
        let publisher = Self.binary(keys.publisher.publicKey)
        for request in [
            Self.request(domain: "WIDGETBUS_INTENTS", mechanism: "NULL", key: nil),
            Self.request(domain: "WIDGETBUS_INTENTS", mechanism: "PLAIN", key: publisher),
            Self.request(domain: "WIDGETBUS_INTENTS", key: nil),
            Self.request(domain: "WIDGETBUS_INTENTS", key: publisher) + [Data()],
            Self.request(domain: "WIDGETBUS_INTENTS", key: publisher.prefix(31)),
            Self.request(domain: "NO_SUCH_ENDPOINT", key: publisher),
            Self.request(domain: "WIDGETBUS_INTENTS", key: Self.binary(try CurveKeyPair.generate().publicKey)),
        ] {
            #expect(Self.status(handler.reply(to: request)) == "400", "\(request.map { String(decoding: $0, as: UTF8.self) })")
        }
        #expect(handler.reply(to: Self.request(domain: "WIDGETBUS_INTENTS", key: publisher, version: "2.0")) == nil)
        #expect(handler.reply(to: [Data("1.0".utf8)]) == nil)
    }

    /// The lines a logger wrote.
    final class RecordedLog: Sendable {
        private let lines = Mutex<[String]>([])
        var all: [String] { lines.withLock { $0 } }

        var logger: Logger {
            Logger(label: "test") { _ in Handler(log: self) }
        }

        private struct Handler: LogHandler {
            let log: RecordedLog
            var metadata: Logger.Metadata = [:]
            var logLevel: Logger.Level = .trace

            subscript(metadataKey key: String) -> Logger.Metadata.Value? {
                get { metadata[key] }
                set { metadata[key] = newValue }
            }

            func log(event: LogEvent) {
                let fields = (event.metadata ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
                log.lines.withLock { $0.append(([event.message.description] + fields).joined(separator: " ")) }
            }
        }
    }

    /// A monitor's message reporting `event` with `value` at `endpoint`.
    static func monitorEvent(_ event: ZMQSocketEvents, value: UInt32, endpoint: String = "tcp://127.0.0.1:5560") -> ZMQSocketEvent {
        var header = withUnsafeBytes(of: event.rawValue) { Data($0) }
        withUnsafeBytes(of: value) { header.append(contentsOf: $0) }
        return ZMQSocketEvent(frames: [header, Data(endpoint.utf8)])!
    }

    static let mechanismMismatch = UInt32(0x1100_0002)  // ZMQ_PROTOCOL_ERROR_ZMTP_MECHANISM_MISMATCH
    static let cryptographic = UInt32(0x1100_0001)  // ZMQ_PROTOCOL_ERROR_ZMTP_CRYPTOGRAPHIC

    @Test func aHandshakeFailedBeforeZAPIsLoggedOncePerEndpointAndReason() throws {
        let keys = try Keys()
        let log = RecordedLog()
        let handler = ZAPHandler(security: keys.security, logger: log.logger)
        for _ in 0..<3 { handler.handshakeFailed(Self.monitorEvent(.handshakeFailedProtocol, value: Self.mechanismMismatch), domain: "WIDGETBUS_INTENTS") }
        handler.handshakeFailed(Self.monitorEvent(.handshakeFailedProtocol, value: Self.mechanismMismatch), domain: "WIDGETBUS_STATE_EVENTS")
        handler.handshakeFailed(Self.monitorEvent(.handshakeFailedProtocol, value: Self.cryptographic), domain: "WIDGETBUS_INTENTS")
        handler.handshakeFailed(Self.monitorEvent(.handshakeFailedNoDetail, value: UInt32(ECONNRESET)), domain: "WIDGETBUS_INTENTS")

        let lines = log.all
        #expect(lines.count == 4, "\(lines)")
        for (domain, reason, words) in [
            ("WIDGETBUS_INTENTS", "mechanism_mismatch", "does not use CURVE"), ("WIDGETBUS_STATE_EVENTS", "mechanism_mismatch", "does not use CURVE"),
            ("WIDGETBUS_INTENTS", "handshake_failed", "0x11000001"), ("WIDGETBUS_INTENTS", "handshake_incomplete", "reset"),
        ] {
            #expect(
                lines.filter { $0.contains("connection refused") && $0.contains("endpoint=\(domain)") && $0.contains("reason=\(reason)") && $0.contains(words) }
                    .count == 1, "\(domain) \(reason)")
        }
    }

    @Test func pastTheBoundKeysAndReasonsAreOnlyCounted() throws {
        let keys = try Keys()
        let log = RecordedLog()
        let handler = ZAPHandler(security: keys.security, logger: log.logger)
        for _ in 0..<ZAPHandler.maxLoggedRefusals {
            _ = handler.reply(to: Self.request(domain: "WIDGETBUS_INTENTS", key: Self.binary(try CurveKeyPair.generate().publicKey)))
        }
        #expect(log.all.count == ZAPHandler.maxLoggedRefusals)
        // The bound is shared: a reason without a key is past it too.
        handler.handshakeFailed(Self.monitorEvent(.handshakeFailedProtocol, value: Self.mechanismMismatch), domain: "WIDGETBUS_INTENTS")
        _ = handler.reply(to: Self.request(domain: "WIDGETBUS_INTENTS", key: Self.binary(try CurveKeyPair.generate().publicKey)))
        #expect(log.all.count == ZAPHandler.maxLoggedRefusals + 1)
        #expect(log.all.last?.hasPrefix("more refused clients than are logged") == true)
    }

    @Test func aReloadThatFailsKeepsTheListsItHad() throws {
        let keys = try Keys()
        let before = keys.security.allowed
        try "not a key".write(to: keys.directory.appendingPathComponent("publishers/broken.key"), atomically: true, encoding: .utf8)
        #expect(throws: (any Error).self) { try keys.security.reload() }
        #expect(keys.security.allowed == before && keys.security.allows(keys.publisher.publicKey, domain: "WIDGETBUS_INTENTS"))
    }

    @Test func eachEndpointLetsInWhatPROTOCOLSaysAndOperatorsEverywhere() {
        let table: [BusEndpoint: (roles: Set<ClientRole>, services: Set<String>)] = [
            .intents: ([.publishers, .operators], ["sync-agent", "push-gateway", "app-gateway"]),
            .stateEvents: ([.operators], ["timeline-service", "metrics-ingest", "sync-agent", "push-gateway"]),
            .stateSnapshot: ([.operators], ["timeline-service", "metrics-ingest", "push-gateway"]),
            .timelines: ([.publishers, .operators], ["snapshot-writer", "push-gateway", "app-gateway"]),
            .timelineEvents: ([.operators], ["snapshot-writer", "push-gateway", "app-gateway", "intent-handler"]),
            .metrics: ([.gateways, .operators], ["app-gateway"]),
            .metricsEvents: ([.operators], ["timeline-service"]),
            .metricsSnapshot: ([.operators], ["timeline-service"]),
            .sync: ([.operators], []),
            .syncEvents: ([.operators], []),
        ]
        #expect(Set(table.keys) == Set(BusEndpoint.all))
        for (endpoint, expected) in table {
            #expect(endpoint.access.roles == expected.roles && endpoint.access.services == expected.services, "\(endpoint.variable)")
        }
    }
}
