import Foundation
import Testing
@testable import WidgetDomain

@Suite("PendingRecord")
struct PendingRecordTests {
    let record = PendingRecord.tensionCheckIn(Fixture.highCheckIn)

    @Test func idAndCollectionComeFromTheCheckIn() {
        #expect(record.id == "abc-123")
        #expect(record.collection == "stress_check_ins")
    }

    @Test func encodesCollectionBesideTheRecord() throws {
        let json = String(decoding: try sortedISOEncoder().encode(record), as: UTF8.self)
        #expect(json == """
            {"collection":"stress_check_ins","record":{"createdAt":"2026-11-22T09:30:00Z","id":"abc-123",\
            "interventionCompleted":false,"suggestedInterventionId":"diaphragm_breathing","tensionLevel":7}}
            """)
    }

    @Test func roundTrips() throws {
        let data = try sortedISOEncoder().encode(record)
        #expect(try isoDecoder().decode(PendingRecord.self, from: data) == record)
    }

    @Test func unknownCollectionIsRefused() {
        let json = #"{"collection":"mood_entries","record":{}}"#
        #expect(throws: DecodingError.self) {
            try isoDecoder().decode(PendingRecord.self, from: Data(json.utf8))
        }
    }
}
