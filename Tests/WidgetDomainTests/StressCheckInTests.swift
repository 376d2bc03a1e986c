import Foundation
import Testing
@testable import WidgetDomain

@Suite("StressCheckIn")
struct StressCheckInTests {
    @Test("Codable round trip (seed 7a)", arguments: [
        StressCheckIn(
            id: "abc-123", tensionLevel: 7, suggestedInterventionId: "diaphragm_breathing",
            interventionCompleted: true, createdAt: Fixture.now),
        StressCheckIn(id: "low-1", tensionLevel: 0, suggestedInterventionId: nil, createdAt: Fixture.now),
        StressCheckIn(
            id: "sub-second", tensionLevel: 10, suggestedInterventionId: "jaw_relaxation",
            createdAt: Fixture.now.addingTimeInterval(0.123_456)),
    ])
    func codableRoundTrip(original: StressCheckIn) throws {
        let data = try JSONEncoder().encode(original)
        let decoded = try JSONDecoder().decode(StressCheckIn.self, from: data)
        #expect(decoded == original)
    }

    @Test func interventionCompletedDefaultsToFalse() {
        let checkIn = StressCheckIn(id: "x", tensionLevel: 3, suggestedInterventionId: nil, createdAt: Fixture.now)
        #expect(checkIn.interventionCompleted == false)
    }

    @Test func encodesTheSeedsFieldNames() throws {
        let data = try sortedISOEncoder().encode(Fixture.highCheckIn)
        #expect(String(decoding: data, as: UTF8.self) == """
            {"createdAt":"2026-11-22T09:30:00Z","id":"abc-123","interventionCompleted":false,\
            "suggestedInterventionId":"diaphragm_breathing","tensionLevel":7}
            """)
    }

    @Test func lowCheckInOmitsSuggestionAndDecodesWithoutIt() throws {
        let low = StressCheckIn(id: "low", tensionLevel: 3, suggestedInterventionId: nil, createdAt: Fixture.now)
        let object = try jsonObject(try sortedISOEncoder().encode(low))
        #expect(object["suggestedInterventionId"] == nil)
        let decoded = try isoDecoder().decode(StressCheckIn.self, from: try sortedISOEncoder().encode(low))
        #expect(decoded.suggestedInterventionId == nil)
    }
}
