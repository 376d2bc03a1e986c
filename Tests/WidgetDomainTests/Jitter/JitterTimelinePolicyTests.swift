import Foundation
import Testing
@testable import WidgetDomain

@Suite("JitterTimelinePolicy")
struct JitterTimelinePolicyTests {
    typealias Policy = JitterTimelinePolicy
    let now = Fixture.now

    @Test func constantsAreTheSeeds() {
        #expect(Policy.sippingEntryCount == 180)
        #expect(Policy.sippingInterval == 10)
        #expect(Policy.scoresEntryCount == 12)
        #expect(Policy.scoresInterval == 300)
    }

    @Test("without a session: 12 score entries 5 minutes apart, reload at end", arguments: [
        JitterState.initial, JitterFixture.scoresState,
    ])
    func scoresTimeline(state: JitterState) {
        let timeline = Policy.timeline(for: state, now: now)
        #expect(timeline.policy == .atEnd)
        #expect(timeline.entries.map(\.date) == (0..<12).map { now.addingTimeInterval(Double($0) * 300) })
        #expect(timeline.entries.last?.date == now.addingTimeInterval(55 * 60))
        #expect(timeline.entries.allSatisfy { $0.content == JitterWidgetContent(scores: state.scores) })
        #expect(timeline.entries.allSatisfy { $0.content.view == .scores && $0.content.sessionId == nil })
    }

    @Test func sippingTimeline180EntriesTenSecondsApartWithElapsedTime() throws {
        let timeline = Policy.timeline(for: JitterFixture.sippingState, now: now)
        #expect(timeline.policy == .atEnd)
        #expect(timeline.entries.count == 180)
        #expect(timeline.entries.map(\.date) == (0..<180).map { now.addingTimeInterval(Double($0) * 10) })
        #expect(timeline.entries.allSatisfy { $0.content.view == .sipping && $0.content.sessionId == JitterFixture.session.id })
        // The session started 125 s before now.
        #expect(timeline.entries[0].content.elapsed == "00:02:05")
        #expect(timeline.entries[0].content.elapsedSeconds == 125)
        #expect(timeline.entries[1].content.elapsed == "00:02:15")
        #expect(timeline.entries[179].content.elapsed == "00:31:55")
        #expect(timeline.entries[179].date.timeIntervalSince(now) == 1790)
    }

    @Test func sippingEntriesStillShowTheScores() {
        let entry = Policy.timeline(for: JitterFixture.sippingState, now: now).entries[3].content
        #expect(entry.crashRiskScore == 72)
        #expect(entry.riskColor == .red)
        #expect(entry.lastDrinkName == "Flat White")
        #expect(entry.sessionStartTime == JitterFixture.session.startTime)
    }

    @Test func aFreshSessionStartsAtZero() throws {
        var context = JitterFixture.context()
        let state = try JitterStateMachine.reduce(.initial, .startDrink, context: &context).state
        let entries = Policy.timeline(for: state, now: now).entries
        #expect(entries.prefix(3).map(\.content.elapsed) == ["00:00:00", "00:00:10", "00:00:20"])
        #expect(entries.allSatisfy { $0.content.isPlaceholder })
    }

    @Test func aSessionExpiringWithinTheHalfHourEndsWithAScoresEntryAtExpiry() throws {
        let session = JitterFixture.session
        let readAt = session.expiresAt.addingTimeInterval(-95)  // 9.5 entries before expiry
        let timeline = Policy.timeline(for: JitterFixture.sippingState, now: readAt)
        #expect(timeline.entries.count == 11)
        #expect(timeline.entries.prefix(10).allSatisfy { $0.content.view == .sipping })
        let last = try #require(timeline.entries.last)
        #expect(last.date == session.expiresAt)
        #expect(last.content == JitterWidgetContent(scores: JitterFixture.scores))
        #expect(timeline.entries[9].content.elapsed == "03:59:55")
        #expect(timeline.policy == .atEnd)
    }

    @Test func anExpiredSessionShowsScoresAgain() {
        let timeline = Policy.timeline(for: JitterFixture.sippingState, now: JitterFixture.session.expiresAt)
        #expect(timeline.entries.count == 12)
        #expect(timeline.entries.allSatisfy { $0.content.view == .scores })
    }

    @Test func aLongSessionKeepsTimingAfterTheFirstHalfHour() {
        // 30 minutes is one timeline's span, not the session's life: the reload at its end
        // times on, with the elapsed time continuing.
        let readAt = JitterFixture.session.startTime.addingTimeInterval(45 * 60)
        let timeline = Policy.timeline(for: JitterFixture.sippingState, now: readAt)
        #expect(timeline.entries.count == 180)
        #expect(timeline.entries.first?.content.elapsed == "00:45:00")
    }

    @Test("entries are ordered and start now", arguments: [JitterState.initial, JitterFixture.scoresState, JitterFixture.sippingState])
    func ordered(state: JitterState) throws {
        let dates = Policy.timeline(for: state, now: now).entries.map(\.date)
        #expect(dates == dates.sorted())
        #expect(Set(dates).count == dates.count)
        #expect(try #require(dates.first) == now)
    }
}
