import Foundation
import Testing
@testable import WidgetDomain

/// The wire shapes of Jitter timeline entries, bodies and state.
@Suite("Jitter coding")
struct JitterCodingTests {
    func json(_ value: some Encodable) throws -> String {
        String(decoding: try sortedISOEncoder().encode(value), as: UTF8.self)
    }

    @Test func kindStringIsTheSeeds() {
        #expect(JitterWidgetKind.allCases.map(\.rawValue) == ["JitterWidget"])
        #expect(JitterWidgetKind.jitter.supportedFamilies == ["systemSmall", "systemMedium"])
    }

    @Test func placeholderEntryShape() throws {
        let entry = TimelineEntry(date: Fixture.now, content: JitterWidgetContent(scores: nil))
        #expect(try json(entry) == """
            {"crashRiskScore":42,"currentCaffeineLevel":85,"date":"2026-11-22T09:30:00Z","focusScore":78,\
            "isPlaceholder":true,"riskColor":"gray","riskLevel":"medium","view":"scores"}
            """)
    }

    @Test func sippingEntryShape() throws {
        let entry = try #require(JitterTimelinePolicy.timeline(for: JitterFixture.sippingState, now: Fixture.now).entries.first)
        #expect(try json(entry) == """
            {"crashRiskScore":72,"currentCaffeineLevel":180,"date":"2026-11-22T09:30:00Z","elapsed":"00:02:05",\
            "elapsedSeconds":125,"focusScore":55,"isPlaceholder":false,"lastDrinkName":"Flat White",\
            "lastDrinkTime":"2026-11-22T08:30:00Z","lastUpdated":"2026-11-22T09:20:00Z","riskColor":"red",\
            "riskLevel":"high","sessionId":"5f0c6b1e-0000-4000-8000-000000000001",\
            "sessionStartTime":"2026-11-22T09:27:55Z","view":"sipping"}
            """)
    }

    @Test("timelines round-trip", arguments: [JitterState.initial, JitterFixture.scoresState, JitterFixture.sippingState])
    func roundTrip(state: JitterState) throws {
        let timeline = JitterTimelinePolicy.timeline(for: state, now: Fixture.now)
        let data = try sortedISOEncoder().encode(timeline)
        #expect(try isoDecoder().decode(Timeline<JitterWidgetContent>.self, from: data) == timeline)
    }

    @Test func stateRoundTrips() throws {
        for state in [JitterState.initial, JitterFixture.scoresState, JitterFixture.sippingState] {
            let data = try sortedISOEncoder().encode(state)
            #expect(try isoDecoder().decode(JitterState.self, from: data) == state)
        }
        #expect(try json(JitterState.initial) == "{}")
    }

    @Test func updateBodyDecodesFromTheDocumentedJSON() throws {
        let body = try isoDecoder().decode(JitterScoresUpdate.self, from: Data("""
            {"crashRiskScore":72,"focusScore":55,"currentCaffeineLevel":180,\
            "lastDrinkTime":"2026-11-22T08:30:00Z","lastDrinkName":"Flat White"}
            """.utf8))
        #expect(body == JitterFixture.update)
        let minimal = try isoDecoder().decode(JitterScoresUpdate.self, from: Data(#"{"crashRiskScore":1,"focusScore":2,"currentCaffeineLevel":3}"#.utf8))
        #expect(minimal == JitterScoresUpdate(crashRiskScore: 1, focusScore: 2, currentCaffeineLevel: 3))
    }

    @Test func finishedDrinkRecordShape() throws {
        var context = JitterFixture.context()
        let record = try #require(try JitterStateMachine.reduce(
            JitterFixture.sippingState, .completeDrink(sessionId: JitterFixture.session.id), context: &context
        ).records.first)
        #expect(try json(record) == """
            {"collection":"drink_sessions","record":{"completedAt":"2026-11-22T09:30:00Z","elapsedSeconds":125,\
            "id":"5f0c6b1e-0000-4000-8000-000000000001","startedAt":"2026-11-22T09:27:55Z"}}
            """)
    }
}
