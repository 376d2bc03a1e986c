import Foundation
import Testing
@testable import WidgetDomain

@Suite("Timeline reload date")
struct TimelineReloadDateTests {
    let now = Fixture.now

    @Test func afterPolicyReloadsAtItsDate() {
        let timeline = Timeline(entries: [TimelineEntry(date: now, content: 1)], policy: .after(now.addingTimeInterval(300)))
        #expect(timeline.reloadDate == now.addingTimeInterval(300))
    }

    @Test func atEndPolicyReloadsAtTheLastEntry() {
        let timeline = Timeline(
            entries: [TimelineEntry(date: now, content: 1), TimelineEntry(date: now.addingTimeInterval(60), content: 2)],
            policy: .atEnd)
        #expect(timeline.reloadDate == now.addingTimeInterval(60))
    }

    @Test func neverPolicyAndEmptyAtEndHaveNoReloadDate() {
        #expect(Timeline(entries: [TimelineEntry(date: now, content: 1)], policy: .never).reloadDate == nil)
        #expect(Timeline<Int>(entries: [], policy: .atEnd).reloadDate == nil)
    }

    @Test func widgetTimelineReloadsWhenItsKindsTimelineDoes() {
        let tension = TensionCheckTimelinePolicy.timeline(for: Fixture.completedState, now: now)
        #expect(WidgetTimeline.tensionCheck(tension).reloadDate == tension.reloadDate)
        #expect(tension.reloadDate == now.addingTimeInterval(5))  // the completed phase's reset
    }
}
