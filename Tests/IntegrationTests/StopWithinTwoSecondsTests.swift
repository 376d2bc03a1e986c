import Foundation
import Testing
import WidgetBusProtocol

/// Every service stops within two seconds of SIGTERM, with its peers running and work just done:
/// the bound a deployment's stop grace period is set from. sync-agent's cases (a database that
/// never answers, an intent-handler frozen mid-request) are in SyncAgentShutdownTests and
/// SyncAgentTests.
@Suite(.serialized)
struct StopWithinTwoSecondsTests {
    static let busServices: [BusFixture.Service] = [.intentHandler, .timelineService, .snapshotWriter, .metricsIngest, .pushGateway]

    @Test(.blockingThreads, arguments: busServices)
    func aServiceStopsWithinTwoSecondsOfSIGTERM(_ service: BusFixture.Service) throws {
        let bus = try BusFixture()
        for peer in Self.busServices { try bus.start(peer) }
        try bus.send(.recordTension, user: "stopper", body: #"{"level":3}"#)
        let signalled = ContinuousClock.now
        let status = bus.stop(service)
        let took = ContinuousClock.now - signalled
        #expect(status == 0, "a clean exit:\n\(bus.allLogs)")
        #expect(took < .seconds(2), "\(service.rawValue) stopped \(took) after SIGTERM")
    }

    @Test func appGatewayWithAnEventStreamOpenStopsWithinTwoSecondsAndEndsTheStream() async throws {
        let gateway = try GatewayFixture()
        let stream = try await EventStreamReader(fixture: gateway, token: gateway.token("stopper"))
        let signalled = ContinuousClock.now
        let status = gateway.bus.stop(.appGateway)
        let took = ContinuousClock.now - signalled
        #expect(status == 0, "a clean exit:\n\(gateway.bus.allLogs)")
        #expect(took < .seconds(2), "app-gateway stopped \(took) after SIGTERM")
        #expect(await stream.ended(within: .seconds(5)), "the stream ended with the gateway")
        stream.close()
    }
}
