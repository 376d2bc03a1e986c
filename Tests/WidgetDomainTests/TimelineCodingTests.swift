import Foundation
import Testing
@testable import WidgetDomain

@Suite("Timeline coding")
struct TimelineCodingTests {
    let now = Fixture.now

    @Test func pickerTimelineHasTheDocumentedShape() throws {
        let timeline = TensionCheckTimelinePolicy.timeline(for: .initial, now: now)
        let json = String(decoding: try sortedISOEncoder().encode(timeline), as: UTF8.self)
        #expect(json == """
            {"entries":[{"date":"2026-11-22T09:30:00Z","phase":"picker"}],\
            "policy":{"date":"2026-11-22T10:00:00Z","type":"after"}}
            """)
    }

    @Test func entriesAreFlatDateBesideThePhaseFields() throws {
        let timeline = TensionCheckTimelinePolicy.timeline(for: Fixture.completedState, now: now)
        let object = try jsonObject(try sortedISOEncoder().encode(timeline))
        let entries = try #require(object["entries"] as? [[String: Any]])
        #expect(entries.count == 2)
        #expect(Set(entries[0].keys) == ["date", "phase", "interventionName", "checkInId", "resetAt"])
        #expect(entries[0]["date"] as? String == "2026-11-22T09:30:00Z")
        #expect(entries[0]["phase"] as? String == "completed")
        #expect(Set(entries[1].keys) == ["date", "phase"])
        #expect(entries[1]["date"] as? String == "2026-11-22T09:30:05Z")
        #expect(entries[1]["phase"] as? String == "picker")
    }

    @Test("every phase timeline round-trips", arguments: [
        Fixture.pickerState, Fixture.suggestionState, Fixture.completedState,
    ])
    func timelineRoundTrip(state: TensionCheckState) throws {
        let timeline = TensionCheckTimelinePolicy.timeline(for: state, now: now)
        let data = try sortedISOEncoder().encode(timeline)
        #expect(try isoDecoder().decode(Timeline<TensionCheckPhase>.self, from: data) == timeline)
    }

    @Test func entryOfAnyContentIsFlat() throws {
        struct Caption: Codable, Equatable, Sendable { var text: String; var size: Int }
        let entry = TimelineEntry(date: now, content: Caption(text: "Hi", size: 2))
        let data = try sortedISOEncoder().encode(entry)
        #expect(String(decoding: data, as: UTF8.self) == #"{"date":"2026-11-22T09:30:00Z","size":2,"text":"Hi"}"#)
        #expect(try isoDecoder().decode(TimelineEntry<Caption>.self, from: data) == entry)
    }

    @Test func entryWithoutDateIsRefused() {
        #expect(throws: DecodingError.self) {
            try isoDecoder().decode(TimelineEntry<TensionCheckPhase>.self, from: Data(#"{"phase":"picker"}"#.utf8))
        }
    }

    @Test("reload policies encode as a tagged object", arguments: [
        (ReloadPolicy.atEnd, #"{"type":"atEnd"}"#),
        (.never, #"{"type":"never"}"#),
        (.after(Fixture.now), #"{"date":"2026-11-22T09:30:00Z","type":"after"}"#),
    ])
    func reloadPolicyShapeAndRoundTrip(policy: ReloadPolicy, json: String) throws {
        let data = try sortedISOEncoder().encode(policy)
        #expect(String(decoding: data, as: UTF8.self) == json)
        #expect(try isoDecoder().decode(ReloadPolicy.self, from: Data(json.utf8)) == policy)
    }

    @Test("undecodable reload policies are refused", arguments: [
        #"{"type":"sometimes"}"#, #"{"type":"after"}"#, #"{}"#, #"{"type":"AtEnd"}"#,
    ])
    func refusesBadPolicies(json: String) {
        #expect(throws: DecodingError.self) {
            try isoDecoder().decode(ReloadPolicy.self, from: Data(json.utf8))
        }
    }

    @Test func widgetTimelineEncodesAsTheKindsOwnTimeline() throws {
        let timeline = TensionCheckTimelinePolicy.timeline(for: Fixture.suggestionState, now: now)
        let wrapped = try sortedISOEncoder().encode(WidgetTimeline.tensionCheck(timeline))
        #expect(wrapped == (try sortedISOEncoder().encode(timeline)))
    }
}
