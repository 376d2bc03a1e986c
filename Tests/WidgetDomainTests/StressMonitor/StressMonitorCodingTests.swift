import Foundation
import Testing
@testable import WidgetDomain

@Suite("StressMonitor coding")
struct StressMonitorCodingTests {
    let now = StressFixture.now

    @Test func kindStringAndFamilies() {
        #expect(StressMonitorWidgetKind.allCases.map(\.rawValue) == ["StressMonitorWidget"])
        #expect(StressMonitorWidgetKind.stressMonitor.supportedFamilies == ["systemSmall", "systemMedium"])
    }

    @Test func theDefaultTimelineHasTheDocumentedShape() throws {
        let timeline = StressMonitorTimelinePolicy.timeline(for: .initial, now: now)
        let json = String(decoding: try sortedISOEncoder().encode(timeline), as: UTF8.self)
        #expect(json == """
            {"entries":[{"category":"moderate","categoryName":"Moderate","date":"2026-11-22T09:30:00Z",\
            "deepLink":"stressmonitor://measurement","hrvAverage":60,"hrvHistory":[],"hrvMax":75,"stressLevel":50}],\
            "policy":{"date":"2026-11-22T09:45:00Z","type":"after"}}
            """)
    }

    @Test func aMeasuredEntryIsFlatAndRoundTrips() throws {
        let state = try StressFixture.history([49, 51, 49])
        let timeline = StressMonitorTimelinePolicy.timeline(for: state, now: now)
        let data = try sortedISOEncoder().encode(timeline)
        #expect(try isoDecoder().decode(Timeline<StressMonitorEntry>.self, from: data) == timeline)
        let entry = try #require((try jsonObject(data)["entries"] as? [[String: Any]])?.first)
        #expect(Set(entry.keys) == [
            "date", "stressLevel", "category", "categoryName", "hrvHistory", "hrvAverage", "hrvMax",
            "hrvTrendPercent", "hrvTrendDirection", "measuredAt", "deepLink",
        ])
        #expect(entry["hrvTrendPercent"] as? Int == -1)
        #expect(entry["hrvTrendDirection"] as? String == "down")
    }

    @Test func theStateRoundTrips() throws {
        var context = StressFixture.context()
        let state = try StressMonitorStateMachine.reduce(try StressFixture.history([50, 61.5]), .updateWidget, context: &context).state
        let data = try sortedISOEncoder().encode(state)
        #expect(try isoDecoder().decode(StressMonitorState.self, from: data) == state)
        #expect(String(decoding: try sortedISOEncoder().encode(StressMonitorState.initial), as: UTF8.self) == #"{"hrvHistory":[]}"#)
    }

    @Test func theMessageBodyDecodesWithOptionalFields() throws {
        let full = #"{"stressLevel":42.5,"hrvMilliseconds":61,"measuredAt":"2026-11-22T09:29:00Z"}"#
        #expect(try isoDecoder().decode(StressMeasurementInput.self, from: Data(full.utf8))
            == StressMeasurementInput(stressLevel: 42.5, hrvMilliseconds: 61, measuredAt: now.addingTimeInterval(-60)))
        #expect(try isoDecoder().decode(StressMeasurementInput.self, from: Data(#"{"stressLevel":42}"#.utf8))
            == StressMeasurementInput(stressLevel: 42))
    }
}
