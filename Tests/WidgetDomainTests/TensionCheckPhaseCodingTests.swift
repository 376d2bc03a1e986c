import Foundation
import Testing
@testable import WidgetDomain

@Suite("TensionCheckPhase coding")
struct TensionCheckPhaseCodingTests {
    @Test("Codable round trip of every phase (seed 7a)", arguments: Fixture.allPhases)
    func roundTrip(phase: TensionCheckPhase) throws {
        let data = try JSONEncoder().encode(phase)
        #expect(try JSONDecoder().decode(TensionCheckPhase.self, from: data) == phase)
    }

    @Test func pickerIsJustItsName() throws {
        let data = try sortedISOEncoder().encode(TensionCheckPhase.picker)
        #expect(String(decoding: data, as: UTF8.self) == #"{"phase":"picker"}"#)
    }

    @Test func suggestionIsFlatWithTheCheckInBesideIt() throws {
        let object = try jsonObject(try sortedISOEncoder().encode(Fixture.suggestionPhase))
        #expect(Set(object.keys) == ["phase", "interventionId", "interventionName", "actionLabel", "checkIn", "checkInId"])
        #expect(object["phase"] as? String == "suggestion")
        #expect(object["interventionId"] as? String == "diaphragm_breathing")
        #expect(object["interventionName"] as? String == "Diaphragm Breathing")
        #expect(object["actionLabel"] as? String == "Try 10 slow breaths (4s in, 6s out)")
        #expect(object["checkInId"] as? String == "abc-123")
        let checkIn = try #require(object["checkIn"] as? [String: Any])
        #expect(checkIn["id"] as? String == "abc-123")
        #expect(checkIn["tensionLevel"] as? Int == 7)
    }

    @Test func completedCarriesNameIdAndResetDate() throws {
        let data = try sortedISOEncoder().encode(Fixture.completedPhase)
        #expect(String(decoding: data, as: UTF8.self) == """
            {"checkInId":"abc-123","interventionName":"Diaphragm Breathing","phase":"completed",\
            "resetAt":"2026-11-22T09:30:05Z"}
            """)
    }

    @Test func nameMatchesTheEncodedPhase() throws {
        for phase in Fixture.allPhases {
            let object = try jsonObject(try JSONEncoder().encode(phase))
            #expect(object["phase"] as? String == phase.name)
        }
        #expect(Fixture.allPhases.map(\.name) == ["picker", "suggestion", "completed"])
    }

    @Test("undecodable phases are refused", arguments: [
        #"{"phase":"celebrating"}"#,
        #"{}"#,
        #"{"phase":"completed","checkInId":"abc-123"}"#,
        #"{"phase":"suggestion","interventionId":"x","interventionName":"X","actionLabel":"do"}"#,
    ])
    func refusesBadPhases(json: String) {
        #expect(throws: DecodingError.self) {
            try isoDecoder().decode(TensionCheckPhase.self, from: Data(json.utf8))
        }
    }

    @Test func stateRoundTripsWithAndWithoutLastSuggestion() throws {
        for state in [Fixture.pickerState, Fixture.suggestionState, Fixture.completedState] {
            let data = try JSONEncoder().encode(state)
            #expect(try JSONDecoder().decode(TensionCheckState.self, from: data) == state)
        }
    }
}
