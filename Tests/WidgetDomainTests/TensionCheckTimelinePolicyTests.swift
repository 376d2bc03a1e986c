import Foundation
import Testing
@testable import WidgetDomain

@Suite("TensionCheckTimelinePolicy")
struct TensionCheckTimelinePolicyTests {
    typealias Policy = TensionCheckTimelinePolicy
    let now = Fixture.now

    @Test func refreshIntervalsAreTheSeeds() {
        #expect(Policy.pickerRefresh == 1800)
        #expect(Policy.suggestionRefresh == 300)
    }

    @Test func pickerShowsOneEntryAndRefreshesInHalfAnHour() {
        let timeline = Policy.timeline(for: .initial, now: now)
        #expect(timeline == Timeline(
            entries: [TimelineEntry(date: now, content: .picker)],
            policy: .after(now.addingTimeInterval(1800))))
    }

    @Test func suggestionShowsOneEntryAndRefreshesInFiveMinutes() {
        let timeline = Policy.timeline(for: Fixture.suggestionState, now: now)
        #expect(timeline == Timeline(
            entries: [TimelineEntry(date: now, content: Fixture.suggestionPhase)],
            policy: .after(now.addingTimeInterval(300))))
    }

    @Test("completed shows now and the picker at resetAt", arguments: [0.0, 1, 4.999])
    func completedBeforeReset(elapsed: Double) {
        let readAt = now.addingTimeInterval(elapsed)
        let resetAt = now.addingTimeInterval(5)
        let timeline = Policy.timeline(for: Fixture.completedState, now: readAt)
        #expect(timeline == Timeline(
            entries: [
                TimelineEntry(date: readAt, content: Fixture.completedPhase),
                TimelineEntry(date: resetAt, content: .picker),
            ],
            policy: .after(resetAt)))
    }

    @Test("completed read at or after resetAt is the picker timeline", arguments: [5.0, 5.001, 60, 86_400])
    func completedAfterReset(elapsed: Double) {
        let readAt = now.addingTimeInterval(elapsed)
        let timeline = Policy.timeline(for: Fixture.completedState, now: readAt)
        #expect(timeline == Timeline(
            entries: [TimelineEntry(date: readAt, content: .picker)],
            policy: .after(readAt.addingTimeInterval(1800))))
    }

    @Test("entries are in date order and none lies before now", arguments: [
        Fixture.pickerState, Fixture.suggestionState, Fixture.completedState,
    ])
    func entriesAreOrdered(state: TensionCheckState) throws {
        let timeline = Policy.timeline(for: state, now: now)
        let dates = timeline.entries.map(\.date)
        #expect(dates == dates.sorted())
        #expect(try #require(dates.first) == now)
        guard case .after(let reload) = timeline.policy else {
            Issue.record("expected .after, got \(timeline.policy)")
            return
        }
        let last = try #require(dates.last)
        #expect(reload >= last)
    }

    @Test func timelineAfterARealDoneTapAutoResets() throws {
        var context = Fixture.context()
        var state = try TensionCheckStateMachine.reduce(.initial, .recordTension(level: 7), context: &context).state
        let checkIn = try #require(state.phase.openSuggestion).checkIn
        state = try TensionCheckStateMachine.reduce(state, .markInterventionDone(checkInId: checkIn.id), context: &context).state

        let timeline = Policy.timeline(for: state, now: now)
        #expect(timeline.entries.map(\.content.name) == ["completed", "picker"])
        #expect(timeline.entries.map(\.date) == [now, now.addingTimeInterval(5)])
    }
}
