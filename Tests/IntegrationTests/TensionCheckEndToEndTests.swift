import Foundation
import Testing
import WidgetBusProtocol
import WidgetDomain

/// The Tension Check widget driven through real intent-handler and timeline-service processes
/// with widgetctl, as a user tapping the widget would.
@Suite(.serialized, .blockingThreads)
struct TensionCheckEndToEndTests {
    @Test func lowTapRecordsCheckInAndStaysOnPicker() throws {
        let bus = try BusFixture()
        try bus.start(.intentHandler)
        try bus.start(.timelineService)

        for level in [0, 3, 5] {
            let record = try bus.send(.recordTension, user: "alice", body: #"{"level":\#(level)}"#)
            guard case .tensionCheck(let state) = record.state else { Issue.record("wrong app"); return }
            #expect(state.phase == .picker)
        }
        let pending = try bus.pendingRecords(user: "alice")
        #expect(pending.count == 3)
        let levels = pending.compactMap { record -> Int? in
            guard case .tensionCheckIn(let checkIn) = record, checkIn.suggestedInterventionId == nil else { return nil }
            return checkIn.tensionLevel
        }
        #expect(levels.sorted() == [0, 3, 5])

        let timeline = try bus.tensionTimeline(user: "alice", atLeastVersion: 3)
        #expect(timeline.entries.map(\.content) == [.picker])
        #expect(timeline.policy == .after(timeline.entries[0].date.addingTimeInterval(30 * 60)))
    }

    @Test func highTapSuggestsAnInterventionThatRotates() throws {
        let bus = try BusFixture()
        try bus.start(.intentHandler)
        try bus.start(.timelineService)

        var previous: String?
        var version: UInt64 = 0
        for level in [7, 10, 7, 10, 7, 10] {
            let record = try bus.send(.recordTension, user: "bob", body: #"{"level":\#(level)}"#)
            guard case .tensionCheck(let state) = record.state,
                case .suggestion(let intervention, let checkIn) = state.phase
            else {
                Issue.record("expected a suggestion, got \(record.state)")
                return
            }
            #expect(intervention.interventionId != previous, "the same intervention was suggested twice in a row")
            #expect(checkIn.tensionLevel == level)
            #expect(checkIn.suggestedInterventionId == intervention.interventionId)
            previous = intervention.interventionId
            version = record.version
        }

        let timeline = try bus.tensionTimeline(user: "bob", atLeastVersion: version)
        guard case .suggestion(let shown, _) = timeline.entries.first?.content else {
            Issue.record("timeline does not show the suggestion: \(timeline)")
            return
        }
        #expect(shown.interventionId == previous)
        #expect(timeline.entries.count == 1)
        #expect(timeline.policy == .after(timeline.entries[0].date.addingTimeInterval(5 * 60)))
    }

    @Test func doneShowsCompletedThenThePickerFiveSecondsLater() throws {
        let bus = try BusFixture()
        try bus.start(.intentHandler)
        try bus.start(.timelineService)

        let suggested = try bus.send(.recordTension, user: "carol", body: #"{"level":10}"#)
        guard case .tensionCheck(let state) = suggested.state, case .suggestion(let intervention, let checkIn) = state.phase else {
            Issue.record("expected a suggestion")
            return
        }
        let done = try bus.send(.markInterventionDone, user: "carol", body: #"{"checkInId":"\#(checkIn.id)"}"#)
        guard case .tensionCheck(let doneState) = done.state,
            case .completed(let name, let completedId, let resetAt) = doneState.phase
        else {
            Issue.record("expected completed, got \(done.state)")
            return
        }
        #expect(name == intervention.name)
        #expect(completedId == checkIn.id)

        let timeline = try bus.tensionTimeline(user: "carol", atLeastVersion: done.version)
        #expect(timeline.entries.count == 2)
        #expect(timeline.entries[0].content == doneState.phase)
        #expect(timeline.entries[1].content == .picker)
        #expect(timeline.entries[1].date == resetAt)
        let shownFor = timeline.entries[1].date.timeIntervalSince(timeline.entries[0].date)
        #expect(shownFor > 0 && shownFor <= 5)
        #expect(timeline.policy == .after(resetAt))

        let pending = try bus.pendingRecords(user: "carol")
        #expect(pending == [.tensionCheckIn(StressCheckIn(
            id: checkIn.id, tensionLevel: 10, suggestedInterventionId: intervention.interventionId,
            interventionCompleted: true, createdAt: checkIn.createdAt))])

        // A second tap on the same checkmark changes nothing.
        let again = try bus.send(.markInterventionDone, user: "carol", body: #"{"checkInId":"\#(checkIn.id)"}"#)
        #expect(again.version == done.version)
    }

    @Test func skipReturnsToThePickerWithoutMarkingDone() throws {
        let bus = try BusFixture()
        try bus.start(.intentHandler)
        try bus.start(.timelineService)

        let suggested = try bus.send(.recordTension, user: "dave", body: #"{"level":7}"#)
        guard case .tensionCheck(let state) = suggested.state, case .suggestion(_, let checkIn) = state.phase else {
            Issue.record("expected a suggestion")
            return
        }
        let skipped = try bus.send(.resetWidget, user: "dave")
        guard case .tensionCheck(let skippedState) = skipped.state else {
            Issue.record("expected a Tension Check state, got \(skipped.state)")
            return
        }
        #expect(skippedState.phase == .picker)

        guard case .tensionCheckIn(let kept)? = try bus.pendingRecords(user: "dave").first else {
            Issue.record("the skipped check-in is not pending")
            return
        }
        #expect(kept.id == checkIn.id)
        #expect(kept.interventionCompleted == false)

        let refused = try bus.sendExpectingError(.markInterventionDone, user: "dave", body: #"{"checkInId":"\#(checkIn.id)"}"#)
        #expect(refused.code == .unknownCheckIn)
        #expect(try bus.tensionTimeline(user: "dave", atLeastVersion: skipped.version).entries.map(\.content) == [.picker])
    }

    @Test func aRetriedIntentIDGetsTheFirstAnswerAndCreatesNoSecondCheckIn() throws {
        let bus = try BusFixture()
        try bus.start(.intentHandler)

        let first = try bus.sendRaw("RecordTensionIntent", user: "erin", body: #"{"level":7}"#, id: "tap-1")
        let retry = try bus.sendRaw("RecordTensionIntent", user: "erin", body: #"{"level":7}"#, id: "tap-1")
        #expect(first.status == 0)
        #expect(retry.stdout == first.stdout, "a retry must get the byte-identical first reply")
        #expect(try bus.pendingRecords(user: "erin").count == 1)

        let reused = try bus.sendRaw("ResetWidgetIntent", user: "erin", id: "tap-1")
        #expect(reused.status == 1)
        #expect(try bus.codec.decode(Envelope<ErrorBody>.self, from: reused.stdoutData).body.code == .idReused)
    }

    @Test func watchPrintsStateAndTimelineEvents() throws {
        let bus = try BusFixture()
        try bus.start(.intentHandler)
        try bus.start(.timelineService)
        _ = try bus.tensionTimeline(user: "frank")  // synced

        let watcher = try ServiceProcess(
            name: "watch", executable: BusFixture.productsDirectory.appendingPathComponent("widgetctl"),
            environment: bus.environment, logDirectory: bus.root,
            arguments: ["watch", "--count", "2", "--seconds", "10"])
        try bus.waitUntil("widgetctl watch is subscribed", timeout: 10) { watcher.log.contains("watching: subscribed") }
        let intentID = "watched-tap"
        try bus.send(.recordTension, user: "frank", body: #"{"level":3}"#, id: intentID)
        try bus.waitUntil("watch exits after two events", timeout: 10) { !watcher.isRunning }

        let events = try watcher.output.split(separator: "\n").map {
            try bus.codec.decode(Envelope<JSONValue>.self, from: Data($0.utf8))
        }
        #expect(Set(events.map(\.type)) == ["StateChanged", "TimelineChanged"])
        #expect(events.allSatisfy { $0.body["causedBy"] == .string(intentID) })
        #expect(events.allSatisfy { $0.user == "frank" })
    }
}
